"""The reference's answers to the oracle tests: run in the sandbox, cached per challenge version and
seed. The I/O edge of ``_oracle``.

The cache is the engine's one on-disk cache (``bouts.cache.Store``, namespace ``oracle``, in
``ScoreConfig.cache_dir``): engine-private, entries MAC'd, atomic, keyed with the engine's
fingerprint, as the reference's own test runs are (whoever can write it decides what is
expected); a process-wide memory cache in front. The key covers the generated file's bytes (so
the seed, the generator's version and the visible examples it was built from), the reference's
bytes, the challenge's content hash and the limits the tests ran under.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bouts.adversarial._oracle import ORACLE_FILE, ORACLE_VERSION
from bouts.cache import Store, hash_tree
from bouts.models.challenge import Challenge
from bouts.runner import RunOptions, run_detailed
from bouts.sandbox import Sandbox

CACHE_SCHEMA = "bouts.oracle-reference/3"
"""/3: a deliberate error recorded by its nearest built-in class; Decimals, Fractions, dates and
slotted objects recorded by value (``_runtime_oracle``)."""
NAMESPACE = "oracle"
"""The cache folder of the reference's answers (docs/configuration.md, "Caches")."""


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
    hash_tree(h, challenge.root / "reference", challenge.root)
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
    path: str = ORACLE_FILE,
) -> ReferenceAnswers:
    """Run the oracle file ``text`` against ``reference/`` (``challenge`` carries the generated
    tests' limits), or read the cached answers. Raises ``SandboxError`` like any run.

    ``path`` is where the file goes in the workspace (the reference-oracle file, or the
    differential tests from the submitted code, ``_probe``).

    ``cache_dir`` is the engine's cache (``bouts.cache.Store``, namespace ``oracle``; the key also
    holds the engine's fingerprint): whoever can write it decides what the generated tests expect,
    so an entry is served only as every cache entry is (the engine user's, MAC under the cache's
    secret); a damaged, forged or foreign entry is a miss and the reference runs again."""
    key = _key(challenge, text if path == ORACLE_FILE else path + "\0" + text)
    if key in _MEMORY:
        return _MEMORY[key]
    store = Store.open(cache_dir, NAMESPACE) if cache_dir else None
    material = {"schema": CACHE_SCHEMA, "answers": key}
    cached = _decoded(store.get(material)) if store else None
    if cached is not None:
        _MEMORY[key] = cached
        return cached
    run = run_detailed(challenge, challenge.root / "reference", sandbox=sandbox, suites=(), seed=seed,
                       options=options, expected_ids=list(ids), generated={path: text})  # fmt: skip
    outcomes = {r.id: r.outcome.value for r in run.report.results}
    digests = {i: tuple(d) for i, d in run.observations.items() if outcomes.get(i) == "passed"}
    answers = ReferenceAnswers(outcomes, digests)
    if run.report.infra_error or run.report.tampering:
        return answers  # not cached: an infrastructure hiccup must not stick
    _MEMORY[key] = answers
    if store is not None:
        store.put(material, {"outcomes": outcomes, "digests": {k: list(v) for k, v in digests.items()}})
    return answers


def _decoded(data: object) -> ReferenceAnswers | None:
    """Stored answers (``Store`` checked the entry), or None if the payload is not their shape."""
    if not isinstance(data, dict):
        return None
    outcomes, digests = data.get("outcomes"), data.get("digests")
    if not isinstance(outcomes, dict) or not isinstance(digests, dict):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in outcomes.items()):
        return None
    if not all(isinstance(k, str) and isinstance(v, list) and all(isinstance(d, str) for d in v)
               for k, v in digests.items()):  # fmt: skip
        return None
    return ReferenceAnswers(outcomes, {k: tuple(v) for k, v in digests.items()})
