"""Trajectories are claims to check (issue 13, item 6).

A trajectory is whatever the submitter uploads. Two of its claims can be held against what the engine
measured itself: the last test results it reports, against the engine's own run of the visible tests
on the submitted code, and the files it says it changed, against the submitted diff (``code/`` vs
``starter/``). A contradiction is an integrity finding, and what the contradicted claims would have
earned is withheld (``read_as_measured``, ``withheld_from``). Pure: events, the run report and file
lists in, a verdict on the claims out. Rules and their reasons: docs/trajectory-judges.md#claims.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from bouts.models.results import Outcome, RunReport
from bouts.models.trajectory import Event, TestCounts
from bouts.scoring.explain import Explained, NotScored
from bouts.trajectory import command_segments, is_test_command

from ._common import (
    _TEST_RUNNER,
    CHANGE_KINDS,
    REVERT_CMD,
    changes,
    is_filtered_test_run,
    is_test_run,
    matches,
    noop_events,
    norm_path,
    same_file,
)

CONTRADICTED = "trajectory claims contradicted"
# The engine's verdicts that say "not run here" rather than "failed": an agent's own run shows them as
# skipped (a service it lacked), or could not see them (a value checked against the reference solution).
NOT_COMPARABLE = ("skipped:", "xfailed:", "xpassed:", "a bouts_expect value differs")
# Failures that depend on the machine (the per-test time and memory limits): never a bright line alone.
MACHINE_BOUND = frozenset({Outcome.TIMEOUT, Outcome.CRASHED})
_CACHE = re.compile(r"(?:^|/)__pycache__/?$|\.py[co]$")
# fmt: off
# Words of a test command that take the next word as their value (so it is not a path operand).
_VALUED = frozenset({
    "-k", "-m", "-p", "-c", "-n", "-o", "-W", "-r", "-e", "-t", "-g", "-run", "--tb", "--maxfail", "--rootdir",
    "--deselect", "--ignore", "--timeout", "--grep", "--testNamePattern", "--test-name-pattern", "--reporter",
    "--durations", "--config", ">", ">>", "<", "2>", "&>",
})
# The word that names the test runner in a test command's argv; path operands come after it.
RUNNER_WORDS = frozenset({
    "pytest", "py.test", "unittest", "nose2", "tox", "nox", "jest", "vitest", "mocha", "test", "--test", "nextest",
    "check", "rspec", "phpunit", "ctest", "manage.py", "runtests.py",
})
# What a runner named on the command line runs itself: the visible test files must be of these kinds.
_PY, _JS = (".py",), (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_DIRECT = {
    "pytest": _PY, "py.test": _PY, "unittest": _PY, "nose2": _PY, "manage.py": _PY, "runtests.py": _PY, "django": _PY,
    "jest": _JS, "vitest": _JS, "mocha": _JS, "--test": _JS, "nextest": (".rs",),
}
_BY_PROGRAM = {"cargo": (".rs",), "go": ("_test.go",), "deno": _JS}
# fmt: on


@dataclass(frozen=True)
class Measured:
    """The engine's run of the visible suite on the submitted code, as far as it can be compared."""

    total: int
    """Visible tests compared (the engine's "not run here" verdicts left out)."""
    red: tuple[str, ...]
    """Visible tests that did not pass, by name."""
    machine_bound: int
    """How many of ``red`` only timed out or crashed."""
    steering: tuple[str, ...] = ()
    """Files the runner removed because they steer a run (conftest.py, pytest.ini, …): the agent's run had them."""

    @property
    def hard(self) -> int:
        """Failing tests beyond those that only timed out or crashed (which depend on the machine)."""
        return len(self.red) - self.machine_bound

    def counts(self) -> str:
        return f"{self.total - len(self.red)} passed, {len(self.red)} failed"


def measured(run: RunReport | None) -> Measured | str:
    """What the engine measured on the visible suite, or why there is nothing to compare with."""
    if run is None:
        return "no engine run of the visible tests to compare with"
    if run.infra_error:
        return "the engine's test run failed (infrastructure)"
    if run.tampering:
        return "the engine's test run was voided (tampering)"
    visible = [
        r for r in run.by_suite("visible") if not (r.outcome is Outcome.FAILED and r.detail.startswith(NOT_COMPARABLE))
    ]
    if not visible:
        return "the engine ran no visible test it can compare"
    red = [r for r in visible if r.outcome is not Outcome.PASSED]
    steering = tuple(p for p in run.removed if not _CACHE.search(p))
    return Measured(
        len(visible),
        tuple(r.id.rsplit("::", 1)[-1] for r in red),
        sum(r.outcome in MACHINE_BOUND for r in red),
        steering,
    )


@dataclass(frozen=True)
class Claim:
    """What one test run of the trajectory says about the visible suite."""

    event: int
    passed: int | None
    failed: int | None
    """None: a non-zero exit with no counts (some failed, how many unknown)."""
    whole_suite: bool
    """A runner that runs the visible files itself, unfiltered, every visible file in reach; False: a task
    runner (``make test``, ``npm test``) or a filtered run whose counts are exactly the visible suite's."""

    @property
    def green(self) -> bool:
        return self.failed == 0

    def describe(self) -> str:
        if self.passed is None:
            return "exit 0" if self.green else "a non-zero exit"
        return f"{self.passed} passed, {self.failed} failed"

    def unexplained(self, red: int, total: int) -> int:
        """Failures the engine measured that this claim leaves unexplained: tests the agent's run did not
        count (skipped there, not collected) may be the failing ones, so they explain as many."""
        if self.failed is None:
            return 0  # "something failed" agrees with any red run
        ran = total if self.passed is None else self.passed + self.failed
        return max(0, red - max(0, total - ran) - self.failed)


def runner_operands(argv: list[str]) -> list[str]:
    """Path operands after the runner word(s) of a test command's argv."""
    at = next((i for i, w in enumerate(argv) if w.rsplit("/", 1)[-1] in RUNNER_WORDS), None)
    if at is None:
        return []
    while at + 1 < len(argv) and argv[at + 1] in RUNNER_WORDS:
        at += 1
    out, skip = [], False
    for w in argv[at + 1 :]:
        if skip:
            skip = False
        elif w in _VALUED:
            skip = True
        elif not (w.startswith("-") or re.match(r"^\d*[<>&]", w) or w in {"discover", "run"}):
            out.append(w)
    return out


def _reaches(operand: str, files: Collection[str]) -> set[str]:
    """The visible test files a path operand (relative or absolute, a file or a directory) takes in."""
    op = norm_path(operand.split("::", 1)[0]).rstrip("/")
    if op in {"", ".", "...", "./..."}:
        return set(files)
    parts = [p for p in op.split("/") if p]
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    return {f for f in files if any(f == t or f.startswith(t + "/") for t in tails)}


def runner_argv(command: str) -> tuple[list[str], bool] | None:
    """The argv of the command's (last) test-running segment, and whether it ends the command, so the
    command's exit status is the runner's (not ``tail``'s after a pipe, not ``|| true``'s)."""
    segments = command_segments(command)
    found = [
        i
        for i, argv in enumerate(segments)
        if is_test_command(argv) or _TEST_RUNNER.search(" ".join(argv)) or (argv[0] == "node" and "--test" in argv)
    ]
    if not found:
        return None
    return segments[found[-1]], found[-1] == len(segments) - 1


def _runs_directly(argv: list[str]) -> tuple[str, ...] | None:
    """The kinds of test file a command's runner runs itself (``pytest``, ``node --test``, ``cargo test``),
    or None for a task runner (``make test``, ``npm test``, ``tox``) whose configuration decides what runs."""
    for w in argv:
        if (name := w.rsplit("/", 1)[-1]) in _DIRECT:
            return _DIRECT[name]
    prog = argv[0].rsplit("/", 1)[-1] if argv else ""
    return _BY_PROGRAM.get(prog) if "test" in argv[1:2] else None


def claim_of(i: int, e: Event, visible_files: Collection[str], total: int) -> Claim | None:
    """The claim test run ``e`` makes about the visible suite; None when it makes none (no counts and no
    exit status of its own, or a run that does not take in the visible suite)."""
    if not is_test_run(e):
        return None
    found = runner_argv(e.command or "")
    argv, ends = found if found else ([], True)
    counted = e.tests is not None and e.tests.passed + e.tests.failed > 0
    if counted:
        assert e.tests is not None
        passed, failed = e.tests.passed, e.tests.failed
    else:
        status = e.exit_code if e.exit_code is not None else {True: 0, False: 1}.get(e.ok) if e.ok is not None else None
        if status is None or not ends:
            return None
        passed, failed = None, (0 if status == 0 else None)
    kinds = _runs_directly(argv)
    if kinds is not None and not all(f.endswith(kinds) for f in visible_files):
        return None  # a runner that cannot run the visible tests says nothing about them
    operands = runner_operands(argv)
    reached = set().union(*(_reaches(o, visible_files) for o in operands)) if operands else set(visible_files)
    if reached != set(visible_files):
        return None
    if kinds is not None and not is_filtered_test_run(e):
        return Claim(i, passed, failed, whole_suite=True)
    if counted and passed is not None and failed is not None and passed + failed == total:
        return Claim(i, passed, failed, whole_suite=False)  # its counts are the visible suite's, exactly
    return None


def _deliverable(path: str) -> bool:
    return "deliverables" in norm_path(path).split("/")[:-1]


def _removed(argv: list[str]) -> list[str]:
    """The paths an ``rm``/``unlink`` segment removes (none for any other command)."""
    return [w for w in argv[1:] if not w.startswith("-")] if argv[0].rsplit("/", 1)[-1] in {"rm", "unlink"} else []


def _scratch(events: Sequence[Event]) -> list[str]:
    """Files the agent wrote and later deleted (a delete event or an ``rm``): not part of the submitted code."""
    scratch: list[str] = []
    for i, e in enumerate(events):
        if e.kind != "write" or not e.path:
            continue
        for x in events[i + 1 :]:
            gone = [x.path] if x.kind == "delete" and x.path else []
            if x.kind == "run" and x.command:
                gone = [t for argv in command_segments(x.command) for t in _removed(argv)]
            if any(same_file(e.path, g) for g in gone):
                scratch.append(e.path)
                break
    return scratch


def last_code_change(events: Sequence[Event]) -> int:
    """Index of the last event that may have changed the submitted code (-1: none). Writing the
    deliverables, a scratch file written and deleted again, or removing caches changes no code."""
    scratch = _scratch(events)

    def is_scratch(path: str) -> bool:
        return _CACHE.search(norm_path(path)) is not None or any(same_file(path, s) for s in scratch)

    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if not changes(e):
            continue
        if e.kind in CHANGE_KINDS and e.path and (_deliverable(e.path) or is_scratch(e.path)):
            continue
        if e.kind == "run" and not any(_changes_code(argv, is_scratch) for argv in command_segments(e.command or "")):
            continue
        return i
    return -1


def _changes_code(argv: list[str], is_scratch: Callable[[str], bool]) -> bool:
    """Whether one segment of a command may change the code: it mutates (read per segment, so a commit
    message's heredoc is not a command) and is not just the removal of scratch files or caches."""
    if not changes(Event(t=0, kind="run", command=" ".join(argv))):
        return False
    if targets := _removed(argv):
        return not all(is_scratch(t) or t.rstrip("/").endswith((".pytest_cache", "__pycache__")) for t in targets)
    return True


@dataclass(frozen=True)
class ClaimCheck:
    """The trajectory's last test claim held against the engine's run."""

    outcome: Literal["contradicted", "agrees", "unverified", "not compared"]
    """``unverified``: no claim follows the last code change and the engine measured visible tests
    failing on the submitted code: the log's test runs spoke of other code, and what they resolved
    cannot be borne out (their resolutions are withheld, nothing is penalised)."""
    note: str
    """One line for the scorecard's math and findings."""
    final: Claim | None = None
    boundary: int = -1
    """The last test run the engine corroborates (-1: none): resolutions by test runs after it are withheld."""
    bright: bool = False
    measured: Measured | None = None

    @property
    def contradicted(self) -> bool:
        return self.outcome == "contradicted"

    @property
    def withholds(self) -> bool:
        """Whether resolutions by test runs after ``boundary`` are withheld (contradicted or unverified)."""
        return self.outcome in ("contradicted", "unverified")


def check_claims(events: Sequence[Event], run: RunReport | None, visible_files: Collection[str]) -> ClaimCheck:
    """Compare the trajectory's last whole-suite test claim after its last code change with the engine's run.

    Only that one claim is compared (an agent may run a subset, or run before its final edit). It is
    contradicted when it leaves measured failures unexplained; a bright line when it claims green, names
    the whole suite, and the engine measured red that no machine limit or removed steering file explains.
    """
    m = measured(run)
    if isinstance(m, str):
        return ClaimCheck("not compared", f"trajectory claims: not compared ({m})")
    last_change = last_code_change(events)
    noops = noop_events(events)  # a failed run and its identical passing re-run claim nothing either way
    claims = [
        c for i, e in enumerate(events) if i not in noops and (c := claim_of(i, e, visible_files, m.total)) is not None
    ]
    after = [c for c in claims if c.event > last_change]
    red = len(m.red)
    hard = m.hard
    if not after:
        earlier = f"; its last one (event {claims[-1].event}) came before" if claims else ""
        where = f" after its last code change (event {last_change})" if last_change >= 0 else " in the log"
        if hard > 0 and last_change >= 0:
            # A green run, then one more edit and no new run: the log's runs spoke of other code. The
            # engine measured this code red, so no resolution by those runs is borne out.
            return ClaimCheck("unverified", f"trajectory claims: unverified (no test result for the visible suite"
                                            f"{where}{earlier}; the engine measured {red} of {m.total} "
                                            f"visible tests failing on the submitted code)", measured=m)  # fmt: skip
        return ClaimCheck(
            "not compared", f"trajectory claims: not compared (no test result for the visible suite{where}{earlier})",
            measured=m,
        )
    final = after[-1]
    engine = f"the engine measured {red} of {m.total} visible tests failing" + (
        f" ({', '.join(m.red[:3])}{' …' if red > 3 else ''})" if red else ""
    )
    said = f"event {final.event} reports {final.describe()}"

    def borne_out(c: Claim) -> bool:
        # A green run agrees with a red measurement only through the tests it left uncounted (skipped,
        # deselected, not collected there): it vouches for nothing, least of all for the failing tests.
        return c.unexplained(red, m.total) == 0 and not (c.green and red > 0)

    corroborated = [c.event for c in after[:-1] if borne_out(c)]
    if borne_out(final):
        return ClaimCheck("agrees", f"trajectory claims: {said}; {engine}: agrees", final, final.event, measured=m)
    if final.unexplained(red, m.total) == 0:
        return ClaimCheck(
            "unverified", f"trajectory claims: unverified ({said}, which leaves tests of the visible suite uncounted; "
                          f"{engine})", final, corroborated[-1] if corroborated else -1, measured=m,
        )  # fmt: skip
    bright = (
        final.green and final.whole_suite and final.passed is not None and final.unexplained(hard, m.total) > 0
        and not m.steering
    )  # fmt: skip
    why = ""
    if not bright and final.green and m.steering:
        why = f" (gray: the engine removed {', '.join(m.steering[:3])}, which the agent's run had)"
    elif not bright and final.green and final.passed is None:
        why = " (gray: the log gives no counts)"
    elif not bright and final.green and hard == 0:
        why = " (gray: only timeouts or crashes, which depend on the machine)"
    return ClaimCheck(
        "contradicted", f"{CONTRADICTED}: {said}; {engine}{why}", final, corroborated[-1] if corroborated else -1,
        bright, m,
    )  # fmt: skip


def read_as_measured(events: Sequence[Event], check: ClaimCheck) -> list[Event]:
    """The events with a contradicted final claim, or an unverified one (green only through the tests it
    left uncounted), replaced by what the engine measured: a failing run of the same command. Nothing
    else moves, so every event index (and every finding's) stays valid."""
    out = list(events)
    if not check.withholds or check.final is None or check.measured is None:
        return out
    m, i = check.measured, check.final.event
    out[i] = events[i].model_copy(
        update={
            "exit_code": 1,
            "ok": False,
            "tests": TestCounts(passed=m.total - len(m.red), failed=len(m.red)),
            "output": None,
        }
    )
    return out


def withheld_from(check: ClaimCheck, events: Sequence[Event], resolver: int | None) -> bool:
    """Whether a resolution by event ``resolver`` is withheld: a test run after the last run the engine
    corroborates, in a log whose final claim it contradicts or whose runs all came before a last code
    change the engine measured failing (``unverified``)."""
    return check.withholds and resolver is not None and resolver > check.boundary and is_test_run(events[resolver])


def annotate(score: Explained | NotScored, check: ClaimCheck, consequence: str) -> Explained | NotScored:
    """Prefix the line of a check that withholds (contradicted or unverified), with what it changed,
    to a judge's math."""
    if not check.withholds or not isinstance(score, Explained):
        return score
    return Explained(score.value, (f"{check.note} → {consequence}",) + score.math)


def measured_counts(check: ClaimCheck) -> str:
    """``7 passed, 5 failed``: the engine's counts a contradicted claim is read as."""
    return check.measured.counts() if check.measured else ""


# --- files ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileCheck:
    """The files the trajectory says it changed, held against the submitted diff."""

    contradicted: tuple[tuple[int, str], ...]
    """(event, what the diff shows instead)."""
    note: str


def check_files(
    events: Sequence[Event],
    code: Collection[str],
    starter: Collection[str],
    changed: Collection[str],
    protected: Sequence[str] = (),
    delivered: Collection[str] = (),
) -> FileCheck:
    """Edits, writes and deletes the log claims that the submitted diff does not show.

    A claim is explained away by a later delete, revert (``git checkout``/``restore``/``stash``/``reset``)
    or a changing command naming the file. Paths that name no file of ``code/`` or ``starter/`` are
    compared only when some other path does (the log's workspace is then known to be this one) and they
    are relative; deliverables (a path under ``deliverables/``, or naming a file of ``delivered``, the
    submission's ``deliverables/``) and protected paths (a bright line of their own) are not compared.
    """
    known = set(code) | set(starter)
    located = False
    found: list[tuple[int, str]] = []
    for i, e in enumerate(events):
        if e.kind not in CHANGE_KINDS or not e.path or not changes(e) or _deliverable(e.path):
            continue
        if _locate(e.path, delivered) is not None and _locate(e.path, known) is None:
            continue  # written where the agent worked, submitted in deliverables/ (ROOT_CAUSE.md)
        if matches(e.path, protected):
            continue
        rel = _locate(e.path, known)
        located = located or rel is not None
        later = events[i + 1 :]
        if _undone(e, later):
            continue
        if e.kind == "delete":
            if rel is not None and rel in code and rel in starter and rel not in changed:
                found.append((i, f"says it deleted {e.path}; code/ still has it, unchanged from starter/"))
        elif rel is None:
            p = norm_path(e.path)
            if not p.startswith(("/", "~", "..")):
                found.append((i, f"says it wrote {e.path}; code/ has no such file"))
        elif rel not in changed:
            found.append((i, f"says it changed {e.path}; " + (
                "code/ has no such file" if rel not in code else "code/ has it unchanged from starter/")))  # fmt: skip
    if not located:
        return FileCheck((), "trajectory files: not compared (no file the log changed is in code/ or starter/)")
    note = f"trajectory files: {len(found)} claimed change(s) the submitted diff does not show" if found else (
        "trajectory files: every claimed change is in the submitted diff")  # fmt: skip
    return FileCheck(tuple(found), note)


def _locate(path: str, known: Collection[str]) -> str | None:
    """The file of ``code/``/``starter/`` a logged path names (the longest path-tail match)."""
    hits = [rel for rel in known if same_file(rel, path)]
    return max(hits, key=len) if hits else None


def _undone(e: Event, later: Sequence[Event]) -> bool:
    """Whether a later event may have undone change ``e`` (so the diff need not show it)."""
    name = PurePosixPath(norm_path(e.path or "")).name
    for x in later:
        # Deleted after writing it, or written again after deleting it.
        if x.path and same_file(x.path, e.path or "") and (e.kind == "delete") != (x.kind == "delete") and changes(x):
            return True
        if (
            x.kind == "run"
            and x.command
            and (REVERT_CMD.search(x.command) or (changes(x) and name and name in x.command))
        ):
            return True
    return False
