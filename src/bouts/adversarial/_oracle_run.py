"""The reference's answers to the oracle tests: run in the sandbox, cached per challenge version and
seed. The I/O edge of ``_oracle``.

The cache sits where the engine caches the reference's own test runs (``ScoreConfig.cache_dir``,
engine-private: whoever can write it decides what is expected), one JSON file per key, written
atomically; a process-wide memory cache in front. The key covers the generated file's bytes (so
the seed, the generator's version and the visible examples it was built from), the reference's
bytes, the challenge's content hash and the limits the tests ran under.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bouts.adversarial._oracle import ORACLE_FILE, ORACLE_VERSION
from bouts.models.challenge import Challenge
from bouts.runner import RunOptions, run_detailed
from bouts.sandbox import Sandbox

CACHE_SCHEMA = "bouts.oracle-reference/1"


@dataclass(frozen=True)
class ReferenceAnswers:
    """What the reference did on each oracle test."""

    outcomes: Mapping[str, str]
    """Test id → its outcome on the reference (only ``passed`` tests have answers)."""
    digests: Mapping[str, tuple[str, ...]]
    """Test id → per call, the digests of how the call ended and of the value returned."""


_MEMORY: dict[str, ReferenceAnswers] = {}


def _key(challenge: Challenge, text: str) -> str:
    h = hashlib.sha256(f"{CACHE_SCHEMA}|{ORACLE_VERSION}|{challenge.content_hash}|".encode())
    h.update(challenge.spec.limits.model_dump_json().encode() + b"\0" + text.encode() + b"\0")
    root = challenge.root / "reference"
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def reference_answers(
    challenge: Challenge,
    text: str,
    ids: Sequence[str],
    *,
    sandbox: Sandbox,
    seed: int,
    options: RunOptions,
    cache_dir: Path | None = None,
) -> ReferenceAnswers:
    """Run the oracle file ``text`` against ``reference/`` (``challenge`` carries the generated
    tests' limits), or read the cached answers. Raises ``SandboxError`` like any run."""
    key = _key(challenge, text)
    if key in _MEMORY:
        return _MEMORY[key]
    path = cache_dir / f"oracle-{key}.json" if cache_dir else None
    if path is not None and path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") == CACHE_SCHEMA:
            answers = ReferenceAnswers(data["outcomes"], {k: tuple(v) for k, v in data["digests"].items()})
            _MEMORY[key] = answers
            return answers
    run = run_detailed(challenge, challenge.root / "reference", sandbox=sandbox, suites=(), seed=seed,
                       options=options, expected_ids=list(ids), generated={ORACLE_FILE: text})  # fmt: skip
    outcomes = {r.id: r.outcome.value for r in run.report.results}
    digests = {i: tuple(d) for i, d in run.observations.items() if outcomes.get(i) == "passed"}
    answers = ReferenceAnswers(outcomes, digests)
    if run.report.infra_error or run.report.tampering:
        return answers  # not cached: an infrastructure hiccup must not stick
    _MEMORY[key] = answers
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as fh:
            json.dump({"schema": CACHE_SCHEMA, "outcomes": outcomes, "digests": answers.digests}, fh)
        os.replace(fh.name, path)  # atomic: a concurrent reader never sees half a file
    return answers
