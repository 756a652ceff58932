"""The one tree of errors the engine raises.

::

    BoutsError                      anything the engine reports on purpose
    ├── UnknownComponentError       a judge returned or declares a component the catalogue does not list
    │                               (its bug, named; bouts.scoring.catalogue)
    ├── InputError                  the user's input is wrong (exit 2 / HTTP 4xx)
    │   ├── ChallengeError          a challenge directory or challenge.toml is malformed
    │   ├── SubmissionError         a submission directory, archive or submission.toml is malformed
    │   │   ├── UnsafeArchiveError  an archive tried ../, absolute paths, links, bombs
    │   │   └── TrajectoryError     a trajectory log is corrupt, truncated or of no known harness (names the line)
    │   ├── WeightsError            a family override breaks the SPEC's override rules
    │   ├── DatasetError            a dataset record given to `bouts import` is malformed (names the line)
    │   ├── AdvisoryError           an OSV export given to `bouts advisories import` is malformed (names the field)
    │   ├── ValidityError           labels or runs given to `bouts stats` cannot be matched or judged
    │   │                           (bouts.calibration.stats_validity; names the file, line and field)
    │   ├── ReviewError             a review-queue action is not allowed (bouts.calibration.review)
    │   │   └── ReviewConflictError someone else changed the review first (bouts.calibration.store)
    │   ├── ServiceInputError       a request the service refuses (bouts.service.errors; HTTP status on the class)
    │   │   ├── NotFoundError       no such challenge, submission or review item (404)
    │   │   ├── ForbiddenError      the caller's role or agent may not do this (403)
    │   │   ├── ConflictError       a duplicate iteration, a closed challenge, a stale review (409)
    │   │   └── PayloadTooLargeError  an upload over the size cap (413)
    │   └── ComputeInputError       `bouts compute` was given an unknown or out-of-range value
    └── InfrastructureError         the engine's own environment failed (exit 3 / HTTP 5xx);
        ├── SandboxError            the sandbox could not be started or broke; never the agent's fault
        └── LLMUnavailableError     an LLM judge's endpoint gave no answer (bouts.judges.llm.calls)

Every ``InputError`` names the file and, where there is one, the field, so that a user can fix it
without reading a traceback. A failure while scoring one submission becomes data on its scorecard;
an ``InfrastructureError`` is never scored as the agent's failure.
"""

from __future__ import annotations


class BoutsError(Exception):
    """Base of every error the engine raises on purpose."""

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None) -> None:
        self.message = message
        self.file = file
        self.field = field
        super().__init__(self.describe())

    def describe(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.field:
            where.append(f"field '{self.field}'")
        return f"{': '.join(where)}: {self.message}" if where else self.message


class InputError(BoutsError):
    """The user's input is wrong; fixing the named file or field fixes it."""


class ChallengeError(InputError):
    """A challenge directory or its challenge.toml is malformed."""


class SubmissionError(InputError):
    """A submission directory, archive or submission.toml is malformed."""


class UnsafeArchiveError(SubmissionError):
    """An archive member escapes the target, is a link or device, or breaks a size/count cap."""


class TrajectoryError(SubmissionError):
    """A trajectory log is corrupt, truncated or in no known format; names the file and the line."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        self.line = line
        super().__init__(message, file=file)

    def describe(self) -> str:
        where = [w for w in (self.file, f"line {self.line}" if self.line else None) if w]
        return f"{': '.join(where)}: {self.message}" if where else self.message


class WeightsError(InputError):
    """A set of profile weights breaks the SPEC's override rules."""


class ComputeInputError(InputError):
    """`bouts compute` got an unknown component or a value outside 0-100."""


class InfrastructureError(BoutsError):
    """The engine's own environment failed. Never scored as the agent's failure."""


class SandboxError(InfrastructureError):
    """The sandbox could not be started, or broke while running."""
