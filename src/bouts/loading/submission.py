"""Load a submission (SPEC §5): a directory, or an archive of one, into a validated ``Submission``."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bouts.errors import SubmissionError
from bouts.loading._common import read_toml, tree_hash, validate, walk_tree
from bouts.loading.archive import MiB, extract_archive, is_archive
from bouts.models.challenge import Challenge
from bouts.models.submission import Submission, SubmissionMeta

# The same caps as an archive's, so a huge directory is refused as clearly as a huge archive.
MAX_FILES = 10_000
MAX_TOTAL_BYTES = 200 * MiB


def load_submission(path: Path, workdir: Path) -> Submission:
    """Load the submission at ``path``: a directory, or a ``.tar.gz``/``.tgz``/``.tar``/``.zip``
    archive that is safely extracted into a fresh directory under ``workdir``.

    Requires ``submission.toml`` and ``code/``; ``deliverables/`` is optional; the trajectory is the
    one root file named ``trajectory.*`` (none is allowed, two or more are refused). Raises
    ``SubmissionError`` (``UnsafeArchiveError`` for a hostile archive) naming the file and field.
    """
    path = Path(path)
    if path.is_dir():
        root, sep = path, "/"
    elif path.is_file() and is_archive(path):
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        dest = Path(tempfile.mkdtemp(prefix="submission-", dir=workdir))
        try:
            root = extract_archive(path, dest, max_total_bytes=MAX_TOTAL_BYTES, max_files=MAX_FILES)
        except BaseException:
            dest.rmdir()  # extract_archive left it empty; leave no trace of a refused archive
            raise
        # Files inside an archive are named "archive.zip!submission.toml", like a jar URL.
        sep = "!"
    elif not path.exists():
        raise SubmissionError("does not exist", file=str(path))
    else:
        raise SubmissionError("is neither a directory nor a .tar.gz/.tgz/.tar/.zip archive",
                              file=str(path))

    def name(rel: str) -> str:
        """A file of the submission, named from the path the user gave."""
        return f"{str(path).rstrip('/')}{sep}{rel}"

    entries = walk_tree(root, display=str(path), error=SubmissionError,
                        max_files=MAX_FILES, max_total_bytes=MAX_TOTAL_BYTES)
    data = read_toml(root / "submission.toml", display=name("submission.toml"), error=SubmissionError)
    meta = validate(SubmissionMeta, data, display=name("submission.toml"), error=SubmissionError)

    code_dir = root / "code"
    if not code_dir.is_dir():
        raise SubmissionError("required directory is missing", file=name("code"))
    deliverables_dir: Path | None = root / "deliverables"
    if not deliverables_dir.exists():
        deliverables_dir = None
    elif not deliverables_dir.is_dir():
        raise SubmissionError("must be a directory", file=name("deliverables"))

    trajectories = sorted(p for p in root.iterdir() if p.name.startswith("trajectory.") and p.is_file())
    if len(trajectories) > 1:
        raise SubmissionError(
            "a submission holds at most one trajectory file; found "
            + ", ".join(p.name for p in trajectories),
            file=name(trajectories[1].name),
            field="trajectory",
        )

    return Submission(
        root=root,
        meta=meta,
        content_hash=tree_hash(entries),
        code_dir=code_dir,
        deliverables_dir=deliverables_dir,
        trajectory_path=trajectories[0] if trajectories else None,
    )


def check_matches(challenge: Challenge, submission: Submission) -> None:
    """Refuse a submission made for another challenge than ``challenge``."""
    if submission.meta.challenge != challenge.spec.id:
        raise SubmissionError(
            f"is for challenge '{submission.meta.challenge}', not '{challenge.spec.id}'",
            file=str(submission.root / "submission.toml"),
            field="challenge",
        )
