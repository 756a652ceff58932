"""Registering a challenge directory: validate it, snapshot it under the data dir by content hash,
record the version. Workers score against the snapshot, so editing the source directory later
never changes what an already-queued submission is scored against."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bouts.errors import ChallengeError
from bouts.loading import load_challenge
from bouts.service.storage import Repository
from bouts.service.storage.records import ChallengeInfo

_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")


def register_challenge(repo: Repository, data_dir: Path, source: Path, *, by: str) -> tuple[ChallengeInfo, bool]:
    """Register the challenge at ``source`` (a directory on the server); (info, whether new)."""
    source = Path(source)
    if not source.is_absolute():
        raise ChallengeError("must be an absolute path on the server", file=str(source), field="path")
    challenge = load_challenge(source)  # validates; raises ChallengeError naming file and field
    slug, digest = challenge.spec.id, challenge.content_hash
    target = data_dir / "challenges" / slug / _safe_digest(digest)
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
        try:
            shutil.copytree(source, staging / "c", symlinks=True, ignore=_IGNORED)
            snapshot = load_challenge(staging / "c")
            if snapshot.content_hash != digest:
                raise ChallengeError("changed while it was being registered; try again", file=str(source))
            try:
                (staging / "c").rename(target)
            except OSError:
                if not target.is_dir():  # another registration of the same version won the race
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    spec = challenge.spec
    return repo.catalog.register_version(
        slug=slug, title=spec.title, family=spec.family, profile=spec.profile, content_hash=digest,
        path=str(target.resolve()), source_path=str(source), registered_by=by,
    )  # fmt: skip


def _safe_digest(digest: str) -> str:
    return "".join(c for c in digest if c.isalnum())[:64] or "unknown"
