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


class Submission(BaseModel):
    """A loaded submission (an archive is extracted to a directory first)."""

    model_config = ConfigDict(frozen=True)

    root: Path
    meta: SubmissionMeta
    content_hash: str
    code_dir: Path
    deliverables_dir: Path | None
    trajectory_path: Path | None
