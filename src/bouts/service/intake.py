"""Accepting an uploaded submission archive: store it under a cap, validate it with the same loader
``score()`` uses (safe extraction included), check it against the URL and the caller, record it
queued. The route only parses the request and calls ``accept_submission``."""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path
from typing import BinaryIO

from bouts.errors import SubmissionError
from bouts.loading import load_submission
from bouts.loading.archive import ARCHIVE_SUFFIXES
from bouts.models.submission import SubmissionMeta
from bouts.service.errors import ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError
from bouts.service.storage import DuplicateSubmissionError, Repository
from bouts.service.storage.records import Principal, SubmissionInfo

_CHUNK = 1 << 16


def accept_submission(
    repo: Repository, data_dir: Path, *, challenge: str, upload: BinaryIO, filename: str, principal: Principal,
    max_bytes: int,
) -> SubmissionInfo:
    """Validate and record one uploaded archive; the queued submission.

    Raises ``NotFoundError`` (no such challenge), ``ConflictError`` (inactive challenge, iteration
    already submitted), ``ForbiddenError`` (an agent submitting as another agent),
    ``PayloadTooLargeError`` and ``SubmissionError`` (naming the field) for a bad archive.
    """  # fmt: skip
    info = repo.catalog.challenge(challenge)
    if info is None:
        raise NotFoundError(f"no challenge '{challenge}'", field="challenge")
    if not info.active:
        raise ConflictError(f"challenge '{challenge}' is not accepting submissions", field="challenge")
    shown = Path(filename or "upload").name
    suffix = next((s for s in ARCHIVE_SUFFIXES if shown.lower().endswith(s)), None)
    if suffix is None:
        raise SubmissionError(f"must be a {', '.join(ARCHIVE_SUFFIXES)} archive", file=shown, field="archive")

    submission_id = uuid.uuid4().hex
    incoming = data_dir / "incoming"
    incoming.mkdir(parents=True, exist_ok=True)
    staged = incoming / f"{submission_id}{suffix}"
    try:
        _store(upload, staged, max_bytes)
        meta, content_hash = _inspect(staged, shown, data_dir)
        if meta.challenge != challenge:
            raise SubmissionError(f"is for challenge '{meta.challenge}', not '{challenge}'",
                                  file=f"{shown}!submission.toml", field="challenge")  # fmt: skip
        if principal.role == "agent" and meta.agent != principal.agent:
            raise ForbiddenError(f"this key belongs to agent '{principal.agent}', not '{meta.agent}'",
                                 file=f"{shown}!submission.toml", field="agent")  # fmt: skip
        final = data_dir / "submissions" / f"{submission_id}{suffix}"
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, final)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    try:
        return repo.submissions.create(
            submission_id=submission_id, challenge_version_id=info.version_id, agent=meta.agent,
            iteration=meta.iteration, elapsed_s=meta.elapsed_s, content_hash=content_hash,
            archive_path=str(final.resolve()), submitted_by=principal.key_pk,
        )  # fmt: skip
    except DuplicateSubmissionError as exc:
        final.unlink(missing_ok=True)
        raise ConflictError(str(exc), file=f"{shown}!submission.toml", field="iteration") from None


def _store(upload: BinaryIO, target: Path, max_bytes: int) -> None:
    written = 0
    with target.open("xb") as out:
        while chunk := upload.read(_CHUNK):
            written += len(chunk)
            if written > max_bytes:
                raise PayloadTooLargeError(f"is larger than {max_bytes} bytes", field="archive")
            out.write(chunk)
    if written == 0:
        raise SubmissionError("is empty", field="archive")


def _inspect(archive: Path, shown: str, data_dir: Path) -> tuple[SubmissionMeta, str]:
    """Load the archive exactly as a worker will; server paths in messages become the upload's name."""
    scratch = data_dir / "tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        try:
            submission = load_submission(archive, Path(tmp))
        except SubmissionError as exc:
            exc.message = exc.message.replace(str(archive), shown).replace(str(tmp), "")
            exc.file = (exc.file or shown).replace(str(archive), shown)
            raise
    return submission.meta, submission.content_hash
