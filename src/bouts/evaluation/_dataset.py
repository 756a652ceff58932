"""What ``bouts eval`` scores against: challenge directories, found by the task ids of a samples file.

A dataset is a directory of challenges (``bouts import`` writes one; a directory holding a
``challenge.toml`` is one challenge), or a dataset file (HumanEval or MBPP records, as
``bouts import`` reads them), which is imported and verified once into the engine's cache and
read from there afterwards. A sample's ``task_id`` names its challenge as the importers name it
(``HumanEval/0`` → ``humaneval-0``, MBPP ``11`` or EvalPlus ``Mbpp/11`` → ``mbpp-11``), or by
the challenge id itself.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bouts.cache import Store
from bouts.errors import InputError
from bouts.importers import SOLUTION_MODULE as MODULE
from bouts.importers import (
    DatasetError,
    ImportReport,
    challenge_id,
    iter_records,
    parse_humaneval,
    parse_mbpp,
    summarise,
    verify_challenges,
    write_challenges,
)
from bouts.sandbox import Sandbox

PREFIXES = ("humaneval", "mbpp")
"""The importers' challenge-id prefixes, tried in turn on a sample's task id."""
STUB = "raise NotImplementedError"
"""The last line of an imported starter: what a ``completion`` replaces."""
DATASETS = "datasets"


@dataclass(frozen=True)
class Dataset:
    """Challenge directories by challenge id."""

    challenges: Mapping[str, Path]

    def challenge_for(self, task_id: str) -> str | None:
        """The id of the challenge a sample's ``task_id`` names, if the dataset has it."""
        for candidate in (task_id, *(challenge_id(p, task_id) for p in PREFIXES)):
            if candidate in self.challenges:
                return candidate
        return None


def challenge_dirs(path: Path) -> dict[str, Path]:
    """Every challenge of a dataset directory (or the one challenge it is), by id; its ``challenge.toml``
    is read (and refused with its file and field) before any scoring starts."""
    from bouts.loading import load_challenge

    path = Path(path)
    dirs = [path] if (path / "challenge.toml").is_file() else sorted(p for p in path.iterdir() if p.is_dir())
    found: dict[str, Path] = {}
    for d in dirs:
        if not (d / "challenge.toml").is_file():
            continue
        ident = load_challenge(d).spec.id
        if ident in found:
            raise InputError(f"challenge id '{ident}' is also the id of {found[ident]}", file=str(d / "challenge.toml"))
        found[ident] = d
    if not found:
        raise InputError("holds no challenge (no challenge.toml in it or in its folders)", file=str(path))
    return found


def dataset_kind(text: str, *, source: str) -> Callable[..., Any]:
    """The parser of a dataset file's records: HumanEval (``prompt``, ``canonical_solution``, ``test``,
    ``entry_point``, as HumanEval+ also has) or MBPP (``test_list``)."""
    for line, record in iter_records(text, source=source):
        if {"canonical_solution", "test", "entry_point"} <= record.keys():
            return parse_humaneval
        if "test_list" in record:
            return parse_mbpp
        raise DatasetError(
            "neither a HumanEval record (prompt, canonical_solution, test, entry_point) nor an MBPP record "
            "(test_list); MBPP+ files are not read: import MBPP itself",
            file=source, line=line,
        )  # fmt: skip
    raise DatasetError("holds no record", file=source)


def imported(
    text: str,
    *,
    source: str,
    digest: str,
    cache_root: Path,
    sandbox: Sandbox,
    jobs: int,
    on_import: Callable[[int], None] | None = None,
) -> tuple[dict[str, Path], ImportReport | None]:
    """The challenges of a dataset file (``digest``: sha256 of its bytes), imported and verified as
    ``bouts import`` does, into ``cache_root/datasets/``; on later calls read from there (each
    challenge checked against the hash recorded when it was written). The report is None when read
    from the cache. ``on_import(n)`` is called before a fresh import of ``n`` tasks."""
    store = Store.open(cache_root, DATASETS)
    from bouts.importers import LAYOUT_VERSION

    material = {"dataset": digest, "profile": "engine", "layout": LAYOUT_VERSION}
    key = store.key(material)
    target = store.root / DATASETS / key
    known = store.get(material)
    if isinstance(known, dict) and (found := _reuse(target, known)):
        return found, None
    parser = dataset_kind(text, source=source)
    tasks = parser(text, source=source)
    if on_import is not None:
        on_import(len(tasks))
    started = time.perf_counter()
    verdicts = verify_challenges(tasks, sandbox=sandbox, jobs=jobs)
    report = summarise(verdicts, dataset=parser.__name__.removeprefix("parse_"), source=source,
                       tasks_read=len(tasks), seconds=time.perf_counter() - started)  # fmt: skip
    kept = [v.challenge for v in verdicts if v.challenge is not None]
    (store.root / DATASETS).mkdir(mode=0o700, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".import-", dir=store.root / DATASETS) as staging:
        write_challenges(kept, Path(staging) / "out")
        if target.exists():
            shutil.rmtree(target)
        (Path(staging) / "out").rename(target)
    found = challenge_dirs(target)
    store.put(material, {"hashes": {i: _hash(p) for i, p in found.items()}})
    return found, report


def _reuse(directory: Path, known: Mapping[str, Any]) -> dict[str, Path] | None:
    hashes = known.get("hashes")
    if not directory.is_dir() or not isinstance(hashes, dict):
        return None
    found = {i: directory / i for i in hashes}
    try:
        if all(_hash(p) == hashes[i] for i, p in found.items()):
            return found
    except InputError:
        pass
    return None


def _hash(challenge_dir: Path) -> str:
    from bouts.loading import load_challenge

    return load_challenge(challenge_dir).content_hash


def program(challenge_dir: Path, kind: str, code: str) -> str | None:
    """The ``solution.py`` of a sample: a ``solution`` as given; a ``completion`` appended to the
    task's prompt, which is the starter less its last line, the importer's ``raise NotImplementedError``
    stub. None when the starter has no such stub (a completion then has nothing to continue)."""
    if kind == "solution":
        return code
    starter = challenge_dir / "starter" / f"{MODULE}.py"
    try:
        lines = starter.read_text(encoding="utf-8").rstrip("\n").split("\n")
    except OSError:
        return None
    if not lines or lines[-1].strip() != STUB:
        return None
    return "\n".join(lines[:-1]) + "\n" + code
