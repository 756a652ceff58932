"""Load a submission (SPEC §5): a directory, or an archive of one, into a validated ``Submission``.

A symbolic link that leaves the submission (or, in an archive, any link member) is **dropped, not
refused**: never followed, left out of every path the loader hands on, and recorded on the
``Submission`` (``dropped_links``) so that the integrity judge gives it the symlink bright line.
Refusing it would give a cheating submission "no score", which must never be better than a flagged
score. In a directory the link stays where the author put it (the loader never modifies its input):
inside ``code/`` it is inert (the runner leaves links out of the workspace, no judge follows one);
``deliverables/`` holding one is copied without it, since documents are read by path; a ``code``,
``deliverables`` or ``trajectory.*`` that is itself such a link is treated as absent (``code/`` as
an empty tree, so the submission is still scored). A ``code`` or ``deliverables`` that is a link to
a folder *inside* the submission is dropped the same way: never followed by anyone, so the tests
never run a tree the judges did not read.

Every path is valid UTF-8 and at most ``_common.MAX_PATH_BYTES`` long, or the submission is refused
with the path named (``_common.walk_tree``).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bouts.errors import SubmissionError
from bouts.loading._common import (
    SKIP_DIRS,
    SKIP_SUFFIXES,
    TreeEntry,
    check_link,
    check_name,
    parse_toml,
    read_toml,
    tree_hash,
    validate,
    walk_tree,
)
from bouts.loading.archive import KEPT_BYTES, MiB, extract_archive_dropping_links, is_archive, scan_archive
from bouts.models.challenge import Challenge
from bouts.models.submission import DroppedLink, Submission, SubmissionMeta
from bouts.scoring.budgets import iteration_refusal

_FOLDERS = ("code", "deliverables")

# The same caps as an archive's, so a huge directory is refused as clearly as a huge archive.
MAX_FILES = 10_000
MAX_TOTAL_BYTES = 200 * MiB
MAX_META_BYTES = KEPT_BYTES
"""The largest ``submission.toml`` (a few lines are expected): parsing a bigger one would cost the
API more CPU than the whole rest of an upload's checks."""


def load_submission(path: Path, workdir: Path) -> Submission:
    """Load the submission at ``path``: a directory, or a ``.tar.gz``/``.tgz``/``.tar``/``.zip``
    archive that is safely extracted into a fresh directory under ``workdir``.

    Requires ``submission.toml`` and ``code/``; ``deliverables/`` is optional; the trajectory is the
    one root file named ``trajectory.*`` (none is allowed, two or more are refused). Links that
    leave the submission are dropped and recorded (module docstring). Raises ``SubmissionError``
    (``UnsafeArchiveError`` for a hostile archive) naming the file and field.
    """
    path = Path(path)
    workdir = Path(workdir)
    archived: tuple[tuple[str, str], ...] = ()
    if path.is_dir():
        root, sep = path, "/"
    elif path.is_file() and is_archive(path):
        workdir.mkdir(parents=True, exist_ok=True)
        dest = Path(tempfile.mkdtemp(prefix="submission-", dir=workdir))
        try:
            extracted = extract_archive_dropping_links(path, dest, max_total_bytes=MAX_TOTAL_BYTES,
                                                       max_files=MAX_FILES)
        except BaseException:
            dest.rmdir()  # extraction left it empty; leave no trace of a refused archive
            raise
        root, archived = extracted.root, extracted.links
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
                        max_files=MAX_FILES, max_total_bytes=MAX_TOTAL_BYTES, escaping_links="keep")
    on_disk = {e.rel for e in entries if e.escapes}  # a directory's links that leave it: still there
    # An archive's links were never created; they are hashed as links all the same, so a tree hashes
    # the same whether it came as a directory or as an archive.
    for rel, target in archived:
        check_link(rel, target, str(path), SubmissionError)
    archived_links = [TreeEntry(rel, root / rel, target) for rel, target in archived]
    entries = sorted([*entries, *archived_links], key=lambda e: e.rel)
    # ``code`` and ``deliverables`` are read as folders by every judge and by the runner: one that is
    # a link, even to a folder of the submission, is dropped as well (followed by some readers and
    # not by others, the tests would run code no judge read).
    dropped = tuple(DroppedLink(path=e.rel, target=e.link or "") for e in entries
                    if e.rel in on_disk or e in archived_links or (e.link is not None and e.rel in _FOLDERS))
    gone = {link.path for link in dropped}
    if "submission.toml" in gone:
        raise SubmissionError("is a symbolic link that leaves the submission (links are never followed)",
                              file=name("submission.toml"))
    toml = root / "submission.toml"
    if toml.is_file() and toml.stat().st_size > MAX_META_BYTES:
        raise SubmissionError(_too_big(), file=name("submission.toml"))
    data = read_toml(toml, display=name("submission.toml"), error=SubmissionError)
    meta = validate(SubmissionMeta, data, display=name("submission.toml"), error=SubmissionError)

    code_dir = root / "code"
    if "code" in gone:
        code_dir = Path(tempfile.mkdtemp(prefix="dropped-code-", dir=_made(workdir)))  # scored as empty
    elif not code_dir.is_dir():
        raise SubmissionError("required directory is missing", file=name("code"))
    deliverables_dir: Path | None = root / "deliverables"
    if "deliverables" in gone or not deliverables_dir.exists():
        deliverables_dir = None
    elif not deliverables_dir.is_dir():
        raise SubmissionError("must be a directory", file=name("deliverables"))
    elif any(p.startswith("deliverables/") for p in on_disk):
        deliverables_dir = _copy_without_links(entries, "deliverables/", _made(workdir))

    trajectories = sorted(p for p in root.iterdir()
                          if p.name.startswith("trajectory.") and p.name not in gone and p.is_file())
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
        dropped_links=dropped,
    )


def inspect_submission_archive(path: Path) -> tuple[SubmissionMeta, str]:
    """What ``load_submission`` finds in the archive at ``path`` (its ``meta`` and ``content_hash``,
    or the same ``SubmissionError``), from one streamed pass that writes nothing (``scan_archive``):
    the checks an upload needs, at a cost bounded by the archive caps rather than by the archive.

    It follows ``load_submission`` step by step on the scanned tree: the single top directory is
    unwrapped, every path is checked, caches are left out of the hash, links are dropped and hashed
    as links, and ``submission.toml``, ``code/``, ``deliverables/`` and the trajectory are checked
    in the same order with the same messages (tests/loading/test_submission_scan.py holds the two
    to the same answers).
    """
    path = Path(path)
    scanned = scan_archive(path, max_total_bytes=MAX_TOTAL_BYTES, max_files=MAX_FILES)
    files, dirs, links = scanned.files, set(scanned.dirs), list(scanned.links)
    kept = scanned.kept
    # Unwrapped as ``_extract`` does: one top-level entry (a dropped link counts) that is a directory.
    top = {rel.split("/")[0] for rel in (*files, *dirs)} | {rel.split("/")[0] for rel, _ in links}
    if len(top) == 1 and (only := next(iter(top))) in dirs:
        prefix = f"{only}/"
        files = {rel.removeprefix(prefix): d for rel, d in files.items() if rel.startswith(prefix)}
        kept = {rel.removeprefix(prefix): b for rel, b in kept.items() if rel.startswith(prefix)}
        dirs = {rel.removeprefix(prefix) for rel in dirs if rel.startswith(prefix)}
        links = [(rel.removeprefix(prefix), target) for rel, target in links]
    display = str(path)

    def name(rel: str) -> str:
        return f"{display.rstrip('/')}!{rel}"

    for rel in sorted((*dirs, *files)):  # walk_tree's checks: every path, in skipped folders too
        check_name(rel, display, SubmissionError)
    entries = [TreeEntry(rel, path, digest=digest) for rel, digest in files.items()
               if not rel.endswith(SKIP_SUFFIXES) and not SKIP_DIRS.intersection(rel.split("/")[:-1])]
    for rel, target in links:
        check_link(rel, target, display, SubmissionError)
    entries = sorted([*entries, *(TreeEntry(rel, path, target) for rel, target in links)], key=lambda e: e.rel)
    gone = {rel for rel, _ in links}
    toml = name("submission.toml")
    if "submission.toml" in gone:
        raise SubmissionError("is a symbolic link that leaves the submission (links are never followed)", file=toml)
    if "submission.toml" not in files:
        raise SubmissionError("is missing" if "submission.toml" not in dirs else "is not a regular file", file=toml)
    if len(kept["submission.toml"]) > MAX_META_BYTES:
        raise SubmissionError(_too_big(), file=toml)
    meta = validate(SubmissionMeta, parse_toml(kept["submission.toml"], display=toml, error=SubmissionError),
                    display=toml, error=SubmissionError)
    if "code" not in gone and "code" not in dirs:
        raise SubmissionError("required directory is missing", file=name("code"))
    if "deliverables" not in gone and "deliverables" in files:
        raise SubmissionError("must be a directory", file=name("deliverables"))
    trajectories = sorted(rel for rel in files if "/" not in rel and rel.startswith("trajectory."))
    if len(trajectories) > 1:
        raise SubmissionError(
            "a submission holds at most one trajectory file; found " + ", ".join(trajectories),
            file=name(trajectories[1]),
            field="trajectory",
        )
    return meta, tree_hash(entries)


def _too_big() -> str:
    return f"is larger than {MAX_META_BYTES} bytes (a submission.toml holds a few lines)"


def _made(workdir: Path) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    return workdir


def _copy_without_links(entries: list[TreeEntry], prefix: str, workdir: Path) -> Path:
    """A private copy of the regular files under ``prefix`` (no link of any kind: documents are read
    by path, and a linked directory on the way would be followed)."""
    dest = Path(tempfile.mkdtemp(prefix="deliverables-", dir=workdir))
    for entry in entries:
        if entry.link is None and entry.rel.startswith(prefix):
            target = dest / entry.rel.removeprefix(prefix)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(entry.path, target, follow_symlinks=False)
    return dest


def check_matches(challenge: Challenge, submission: Submission) -> None:
    """Refuse a submission made for another challenge than ``challenge``, or an iteration past the
    challenge's ``[budgets] iterations``."""
    if submission.meta.challenge != challenge.spec.id:
        raise SubmissionError(
            f"is for challenge '{submission.meta.challenge}', not '{challenge.spec.id}'",
            file=str(submission.root / "submission.toml"),
            field="challenge",
        )
    if why := iteration_refusal(submission.meta.iteration, challenge.spec.budgets.iterations):
        raise SubmissionError(why, file=str(submission.root / "submission.toml"), field="iteration")
