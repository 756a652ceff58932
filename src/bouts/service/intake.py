"""Accepting an uploaded submission archive: store it under a cap, validate it with the checks of the
loader ``score()`` uses, check it against the URL and the caller, record it queued. The route only
parses the request and calls ``accept_submission``.

The archive is validated by ``bouts.loading.inspect_submission_archive``: one streamed pass that
writes nothing and stops at the first cap exceeded, so the CPU one upload can cost is bounded by the
archive caps (10,000 members, 200 MiB of content) whatever the archive holds (docs/service.md)."""

from __future__ import annotations

import os
import shutil
import time
import uuid
from pathlib import Path
from typing import BinaryIO

from bouts.errors import ChallengeError, SubmissionError
from bouts.loading import read_toml, validate
from bouts.loading.archive import ARCHIVE_SUFFIXES
from bouts.loading.submission import inspect_submission_archive
from bouts.models.challenge import ChallengeSpec
from bouts.models.submission import SubmissionMeta
from bouts.scoring.budgets import iteration_refusal
from bouts.service.errors import ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError
from bouts.service.launch import launch_gate, refusal
from bouts.service.limits import check_meta
from bouts.service.storage import DuplicateSubmissionError, Repository
from bouts.service.storage.records import ChallengeInfo, Principal, SubmissionInfo

_CHUNK = 1 << 16
INCOMING, ARCHIVES, SCRATCH = "incoming", "submissions", "tmp"
"""Under the data dir: uploads being received, accepted archives, scratch (an upload is no longer
extracted there; what an older version left is still swept)."""
KEPT_SUFFIX = ".scored.json"
"""Beside an accepted archive: its finished scoring, kept until it is saved (``bouts.service.jobs``)."""


def accept_submission(
    repo: Repository, data_dir: Path, *, challenge: str, upload: BinaryIO, filename: str, principal: Principal,
    max_bytes: int,
) -> SubmissionInfo:
    """Validate and record one uploaded archive; the queued submission.

    Raises ``NotFoundError`` (no such challenge), ``ConflictError`` (inactive challenge, launch
    gate closed: ``bouts.service.launch``, iteration already submitted), ``ForbiddenError`` (an
    agent submitting as another agent),
    ``PayloadTooLargeError`` and ``SubmissionError`` (naming the field) for a bad archive.
    """  # fmt: skip
    info = open_challenge(repo, challenge)
    shown = Path(filename or "upload").name
    suffix = next((s for s in ARCHIVE_SUFFIXES if shown.lower().endswith(s)), None)
    if suffix is None:
        raise SubmissionError(f"must be a {', '.join(ARCHIVE_SUFFIXES)} archive", file=shown, field="archive")

    submission_id = uuid.uuid4().hex
    incoming = data_dir / INCOMING
    incoming.mkdir(parents=True, exist_ok=True)
    staged = incoming / f"{submission_id}{suffix}"
    final = data_dir / ARCHIVES / f"{submission_id}{suffix}"
    try:
        _store(upload, staged, max_bytes)
        meta, content_hash = _inspect(staged, shown)
        if meta.challenge != challenge:
            raise SubmissionError(f"is for challenge '{meta.challenge}', not '{challenge}'",
                                  file=f"{shown}!submission.toml", field="challenge")  # fmt: skip
        if principal.role == "agent" and meta.agent != principal.agent:
            raise ForbiddenError(f"this key belongs to agent '{principal.agent}', not '{meta.agent}'",
                                 file=f"{shown}!submission.toml", field="agent")  # fmt: skip
        if why := iteration_refusal(meta.iteration, iteration_budget(Path(info.path))):
            raise ConflictError(why, file=f"{shown}!submission.toml", field="iteration")
        final.parent.mkdir(parents=True, exist_ok=True)

        def place() -> None:  # inside the row's transaction: the commit follows the move
            os.replace(staged, final)

        return repo.submissions.create(
            submission_id=submission_id, challenge_version_id=info.version_id, agent=meta.agent,
            iteration=meta.iteration, elapsed_s=meta.elapsed_s, content_hash=content_hash,
            archive_path=str(final.resolve()), submitted_by=principal.key_pk, place=place,
        )  # fmt: skip
    except DuplicateSubmissionError as exc:
        raise ConflictError(str(exc), file=f"{shown}!submission.toml", field="iteration") from None
    except BaseException:
        final.unlink(missing_ok=True)  # the row did not commit: neither does the archive
        raise
    finally:
        staged.unlink(missing_ok=True)


def open_challenge(repo: Repository, challenge: str) -> ChallengeInfo:
    """The challenge, if it takes submissions now (an upload or a run the service records); else
    ``NotFoundError`` or ``ConflictError`` (closed by the operator, launch gate closed)."""
    info = repo.catalog.challenge(challenge)
    if info is None:
        raise NotFoundError(f"no challenge '{challenge}'", field="challenge")
    if not info.active:
        raise ConflictError(f"challenge '{challenge}' is not accepting submissions", field="challenge")
    gate = launch_gate(info)
    if not gate.open:
        raise ConflictError(refusal(info, gate), field="challenge")
    return info


def iteration_budget(challenge_dir: Path) -> int | None:
    """The registered challenge's ``[budgets] iterations`` (its snapshot was validated when registered)."""
    toml = challenge_dir / "challenge.toml"
    spec = validate(ChallengeSpec, read_toml(toml, display=str(toml), error=ChallengeError),
                    display=str(toml), error=ChallengeError)  # fmt: skip
    return spec.budgets.iterations


def sweep_orphans(repo: Repository, data_dir: Path, *, older_than_s: float) -> list[Path]:
    """Remove what an interrupted upload left behind: staged files, scratch directories, and
    archives under ``submissions/`` that no submission row names (the process died between the
    move and the commit). Only files older than ``older_than_s`` go, so an upload another API
    process is landing right now is left alone. The removed paths."""
    cutoff = time.time() - older_than_s
    removed: list[Path] = []
    for sub in (INCOMING, SCRATCH):
        for path in sorted((data_dir / sub).glob("*")):
            if _older(path, cutoff):
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink(missing_ok=True)
                removed.append(path)
    archives = data_dir / ARCHIVES
    candidates = [p for p in sorted(archives.glob("*")) if p.is_file() and _older(p, cutoff)]
    # a finished scoring kept until it is saved (bouts.service.jobs.kept_path) belongs to its archive
    owners = {p: Path(str(p)[: -len(KEPT_SUFFIX)]) if p.name.endswith(KEPT_SUFFIX) else p for p in candidates}
    known = repo.submissions.archive_paths([str(p.resolve()) for p in owners.values()])
    for path in candidates:
        if str(owners[path].resolve()) not in known:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _older(path: Path, cutoff: float) -> bool:
    try:
        return path.lstat().st_mtime <= cutoff
    except FileNotFoundError:
        return False


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


def _inspect(archive: Path, shown: str) -> tuple[SubmissionMeta, str]:
    """Check the archive as a worker will load it, without extracting it; server paths in messages
    become the upload's name."""
    try:
        # Member names and link targets that are not UTF-8 (or too long) are the loader's to refuse.
        meta, content_hash = inspect_submission_archive(archive)
        check_meta(meta, file=f"{shown}!submission.toml")
    except SubmissionError as exc:
        exc.message = exc.message.replace(str(archive), shown)
        exc.file = (exc.file or shown).replace(str(archive), shown)
        exc.field = exc.field or "archive"  # the upload's part that is at fault
        raise
    return meta, content_hash
