"""The I/O edge of the importers: write parsed challenges to disk, whole or not at all.

Each challenge is written into a staging directory next to its destination, loaded with
``load_challenge`` (so nothing that would not load is ever published), then renamed into place:
a crash or a full disk leaves complete challenge directories or none, never half of one.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from bouts.errors import InputError
from bouts.importers._model import ImportedChallenge
from bouts.loading import load_challenge


def write_challenges(
    challenges: Sequence[ImportedChallenge],
    out: Path,
    *,
    overwrite: bool = False,
    on_written: Callable[[ImportedChallenge, Path], None] | None = None,
) -> list[Path]:
    """Write each challenge to ``out/<id>/``; returns the directories written.

    Refuses (``InputError``, before writing anything) when a destination exists and ``overwrite``
    is false. With ``overwrite`` an existing directory is replaced only once its successor is
    complete and loads.
    """
    out = Path(out)
    if not overwrite:
        taken = [c.id for c in challenges if (out / c.id).exists()]
        if taken:
            more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
            raise InputError(f"already exists; pass --overwrite to replace it{more}", file=str(out / taken[0]))
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix=".bouts-import-", dir=out) as staging:
        for challenge in challenges:
            written.append(_publish(challenge, out, Path(staging)))
            if on_written is not None:
                on_written(challenge, written[-1])
    return written


def _publish(challenge: ImportedChallenge, out: Path, staging: Path) -> Path:
    draft = staging / challenge.id
    for rel, text in challenge.files.items():
        path = draft / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    load_challenge(draft)  # a ChallengeError here is a bug in the importer; nothing is published
    target = out / challenge.id
    if target.exists():
        old = staging / f"{challenge.id}.old"
        target.rename(old)
        draft.rename(target)
        shutil.rmtree(old)
    else:
        draft.rename(target)
    return target
