"""The submission contract (SPEC §5): ``submission.toml`` plus code, deliverables and trajectory."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class SubmissionMeta(BaseModel):
    """The contents of ``submission.toml``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str = Field(min_length=1, max_length=200)
    challenge: str = Field(min_length=1, max_length=80)
    iteration: int = Field(1, ge=1)
    elapsed_s: float | None = Field(None, ge=0)
    """Wall time from the start of the attempt to this submission."""


class DroppedLink(BaseModel):
    """A symbolic link the loader left out of the submission: never followed, kept as evidence.

    A directory submission's link that leaves the directory, and every link member of an archive
    (none is ever created), is dropped rather than refused: "no score" must never be better than
    a flagged score, so the submission is scored and the integrity judge judges the link by its
    target text (docs/integrity.md)."""

    model_config = ConfigDict(frozen=True)

    path: str
    """Where the link sits, relative to the submission's root, ``/``-separated (``code/ledger/x``)."""
    target: str
    """The link's target as written (``/etc/passwd``, ``../../reference``); never resolved."""


class Submission(BaseModel):
    """A loaded submission (an archive is extracted to a directory first)."""

    model_config = ConfigDict(frozen=True)

    root: Path
    meta: SubmissionMeta
    content_hash: str
    code_dir: Path
    deliverables_dir: Path | None
    trajectory_path: Path | None
    dropped_links: tuple[DroppedLink, ...] = ()
    """Symbolic links left out of the submission (see ``DroppedLink``), sorted by path."""
