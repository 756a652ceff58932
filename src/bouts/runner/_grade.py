"""``grade``: the whole static-test run of one submission, as the pipeline needs it.

1. The reference solution's run (trusted, cached by challenge content): the expected test ids
   and, for tests that use ``bouts_expect``, the reference values' digests.
2. Every suite with the published seed.
3. The hidden suite again with a fresh random seed; a hidden test counts only if it passed in both
   phases (SPEC §3). Both seeds are recorded.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from bouts.cache import Store, hash_tree
from bouts.languages import language_of
from bouts.models.challenge import SUITES, Challenge, Suite
from bouts.models.results import Outcome, RunReport, StabilitySignals, TestResult
from bouts.runner._exploits import merged
from bouts.runner._externalise import VERSION as EXTERNALISE_VERSION
from bouts.runner._integrity import void
from bouts.runner._run import (
    DEFAULT_OPTIONS,
    DetailedRun,
    Expectations,
    FreshPhase,
    GeneratedPart,
    RunOptions,
    run_detailed,
    run_suites,
)
from bouts.runner.js import JS_EXTERNALISE_VERSION
from bouts.sandbox import Sandbox

CACHE_SCHEMA = "bouts.reference/3"


@dataclass(frozen=True)
class Reference:
    """What the reference solution's run established for one seed."""

    ids: tuple[str, ...]
    """Every test id the reference collected and ran (failing ones included: the challenge's flaw,
    surfaced by calibration, never a reason to drop a test)."""
    observations: Mapping[str, tuple[str, ...]]
    """Per passed test id, the digests of its ``bouts_expect`` values (JavaScript runner)."""
    occurrences: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    """Per passed test id, the golden observations of its externalised assertions: the values
    graded runs are held to. Never sent into a sandbox."""
    seed_readers: frozenset[str] | None = None
    """The tests that may have read the seed, ``""`` for a collection that may have
    (:attr:`DetailedRun.seed_readers`); ``None``: not known, as if every one had."""

    def seed_free(self, tests: Callable[[str], bool]) -> bool:
        """Whether no collection and none of the ``tests`` read the seed: the reference's values
        for them are the same under any seed (docs/sandbox.md, "The fresh seed's reference run")."""
        readers = self.seed_readers
        return readers is not None and "" not in readers and not any(tests(i) for i in readers)


_MEMORY: dict[str, Reference] = {}
"""Process-wide cache: a worker scoring many submissions runs each reference once."""


def _key(
    challenge: Challenge, suites: tuple[Suite, ...], seed: int, options: RunOptions, select: tuple[str, ...] | None
) -> str:  # fmt: skip
    # The services a run is given change which tests exist (e.g. a PostgreSQL variant), so they key it.
    services = f"postgres={options.postgres is not None}"
    # Both rewrites' versions: a golden run's observations are only good for the rewrite that made them.
    versions = f"{EXTERNALISE_VERSION}|{JS_EXTERNALISE_VERSION}"
    text = f"{CACHE_SCHEMA}|{versions}|{challenge.content_hash}|{','.join(suites)}|{seed}|{services}"
    text += "" if select is None else "|select=" + "\n".join(select)
    h = hashlib.sha256(text.encode())
    for sub in ("tests", "reference"):  # the bytes themselves too
        hash_tree(h, challenge.root / sub, challenge.root)
    return h.hexdigest()


def reference_run(
    challenge: Challenge,
    sandbox: Sandbox,
    *,
    seed: int,
    suites: tuple[Suite, ...] = SUITES,
    cache_dir: Path | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
    select: tuple[str, ...] | None = None,
) -> Reference | None:
    """Run the reference solution (``None`` if the challenge has none), cached by content and seed;
    with ``select``, only those tests of ``suites`` (:func:`run_detailed`'s ``select``).

    ``cache_dir`` is the engine's cache (``bouts.cache.Store``, namespace ``reference``; the key
    also holds the engine's fingerprint): private to the engine, as whoever can write it decides
    what is expected. A damaged or foreign entry is a miss: the reference runs again.
    """
    ref_dir = challenge.root / "reference"
    if not ref_dir.is_dir():
        return None
    key = _key(challenge, suites, seed, options, select)
    if key in _MEMORY:
        return _MEMORY[key]
    store = Store.open(cache_dir, "reference") if cache_dir else None
    cached = _decoded(store.get({"schema": CACHE_SCHEMA, "run": key})) if store else None
    if cached is not None:
        _MEMORY[key] = cached
        return cached
    mode = language_of(challenge).assertions
    more = {"select": select} if select is not None else {}  # Python's runner only (grade asks no other)
    run = run_detailed(challenge, ref_dir, sandbox=sandbox, suites=suites, seed=seed, options=options,
                       assertions=mode, **more)  # fmt: skip
    ids = tuple(r.id for r in run.report.results if "::" in r.id)
    ref = Reference(ids, dict(run.observations), dict(run.occurrences), run.seed_readers)
    _MEMORY[key] = ref
    if store is not None:
        readers = None if ref.seed_readers is None else sorted(ref.seed_readers)
        store.put({"schema": CACHE_SCHEMA, "run": key},
                  {"ids": list(ids), "observations": ref.observations, "occurrences": ref.occurrences,
                   "seed_readers": readers})  # fmt: skip
    return ref


def _decoded(data: object) -> Reference | None:
    """A stored reference run (``bouts.cache.Store`` checked the entry); None if it is not one."""
    try:
        return Reference(
            tuple(data["ids"]), {k: tuple(v) for k, v in data["observations"].items()},  # type: ignore[index]
            {k: tuple(v) for k, v in data["occurrences"].items()},  # type: ignore[index]
            None if data["seed_readers"] is None else frozenset(data["seed_readers"]),  # type: ignore[index]
        )  # fmt: skip
    except (TypeError, KeyError, AttributeError):
        return None


def grade(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    progress: Callable[[TestResult], None] | None = None,
    seed: int | None = None,
    fresh_seed: int | None = None,
    cache_dir: Path | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
) -> RunReport:
    """Reference run, published-seed run, fresh-seed hidden run; merged into one :class:`RunReport`.

    Python on a backend that can hand the sandbox a pipe to read (``Sandbox.duplex_fds``): both
    graded phases in one sandbox session, while the fresh seed's reference run goes on beside it
    (docs/sandbox.md, "Two phases, one session"); otherwise two sessions, one after the other."""
    return grade_with(challenge, code_dir, sandbox=sandbox, progress=progress, seed=seed, fresh_seed=fresh_seed,
                      cache_dir=cache_dir, options=options)[0]  # fmt: skip


def grade_with(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    progress: Callable[[TestResult], None] | None = None,
    seed: int | None = None,
    fresh_seed: int | None = None,
    cache_dir: Path | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
    part: GeneratedPart | None = None,
) -> tuple[RunReport, DetailedRun | None]:
    """:func:`grade`, with the engine's generated tests (``part``, Python's runner only) in the first
    phase of the graded session (docs/sandbox.md, "Generated tests in the graded session"); their
    own run, concluded apart, second (``None`` without a ``part``)."""
    published = challenge.spec.tests.seed if seed is None else seed
    ref = reference_run(challenge, sandbox, seed=published, cache_dir=cache_dir, options=options)
    lang = language_of(challenge)
    external = ref is not None and lang.assertions == "golden"
    hidden = bool(challenge.test_files.get("hidden"))
    fresh = (fresh_seed if fresh_seed is not None else _fresh_seed(published)) if hidden else None
    # Values checked against the reference depend on the seed: the fresh phase asks the reference
    # again, unless its run showed that no hidden test (nor the collection) read the seed.
    again = ref is not None and any(ref.observations.get(i) or i in ref.occurrences
                                    for i in ref.ids if _is_hidden(challenge, i)) \
        and not ref.seed_free(lambda i: _is_hidden(challenge, i))  # fmt: skip
    # Only the hidden tests that read it, when the collection did not: the others' values hold.
    only = _readers(challenge, ref) if again and ref is not None and lang.assertions == "golden" else None

    def fresh_reference(run_options: RunOptions) -> Reference | None:
        again_ref = reference_run(challenge, sandbox, seed=fresh, suites=("hidden",), options=run_options,
                                  select=only)  # type: ignore[arg-type]  # fmt: skip
        return again_ref if only is None or again_ref is None or ref is None else _patched(ref, again_ref, only)

    def fresh_expectations(hidden_ref: Reference | None) -> Expectations:
        return Expectations(
            expected_ids=[i for i in hidden_ref.ids if _is_hidden(challenge, i)] if hidden_ref else None,
            golden=hidden_ref.observations if hidden_ref is not None and hidden_ref is not ref and not external
            else None,
            golden_occurrences=hidden_ref.occurrences if hidden_ref is not None else None,
        )  # fmt: skip

    first_phase = {
        "expected_ids": ref.ids if ref else None, "golden": ref.observations if ref and not external else None,
        "assertions": "external" if external else "inline", "golden_occurrences": ref.occurrences if ref else None,
    }  # fmt: skip
    with_part = {} if part is None else {"part": part}
    if fresh is not None and lang.same_session_fresh and getattr(sandbox, "duplex_fds", False):
        # Beside the graded session, off its critical path; one worker: a second would collect the
        # suite again for little (measured: 1.0 against 1.25 core-seconds, docs/benchmarks.md).
        beside = replace(options, workers=1)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bouts-reference") as pool:
            pending = pool.submit(fresh_reference, beside) if again else None
            run = run_detailed(
                challenge, code_dir, sandbox=sandbox, progress=progress, seed=published, options=options,
                fresh=FreshPhase(fresh, lambda: fresh_expectations(pending.result() if pending else ref)),
                **first_phase, **with_part,  # type: ignore[arg-type]
            )  # fmt: skip
        assert run.fresh is not None
        return merge_phases(run.report, run.fresh.report), run.generated
    detailed = run_detailed(challenge, code_dir, sandbox=sandbox, progress=progress, seed=published,
                            options=options, **first_phase, **with_part)  # type: ignore[arg-type]  # fmt: skip
    first = detailed.report
    if fresh is None:
        return first, detailed.generated
    hidden_ref = fresh_reference(options) if again else ref
    expect = fresh_expectations(hidden_ref)
    second = run_suites(
        challenge, code_dir, sandbox=sandbox, suites=("hidden",), seed=fresh, options=options,
        expected_ids=expect.expected_ids, golden=expect.golden, assertions=first_phase["assertions"],  # type: ignore[arg-type]
        golden_occurrences=expect.golden_occurrences,
    )  # fmt: skip
    return merge_phases(first, second), detailed.generated


def _readers(challenge: Challenge, ref: Reference) -> tuple[str, ...] | None:
    """The hidden tests that read the seed in the reference's run, if no collection did; else None."""
    if ref.seed_readers is None or "" in ref.seed_readers:
        return None
    return tuple(sorted(i for i in ref.seed_readers if _is_hidden(challenge, i) and i in ref.ids))


def _patched(ref: Reference, again: Reference, only: tuple[str, ...]) -> Reference:
    """The published run's hidden values, those of ``only`` replaced by their fresh-seed run's
    (``again``); a test of ``only`` the reference failed under the fresh seed keeps no value."""
    redo = set(only)
    return Reference(
        ref.ids,
        {**{k: v for k, v in ref.observations.items() if k not in redo}, **again.observations},
        {**{k: v for k, v in ref.occurrences.items() if k not in redo}, **again.occurrences},
    )


def _fresh_seed(published: int) -> int:
    while (seed := secrets.randbelow(2**31 - 1) + 1) == published:
        pass
    return seed


def _is_hidden(challenge: Challenge, node: str) -> bool:
    return node.split("::", 1)[0] in challenge.test_files.get("hidden", [])


def merge_phases(first: RunReport, second: RunReport) -> RunReport:
    """A hidden test passes only if it passed with both seeds. Pure."""
    fresh = second.seeds[0] if second.seeds else None
    later = {r.id: r for r in second.results}
    results: list[TestResult] = []
    for r in first.results:
        other = later.get(r.id)
        if r.suite == "hidden" and r.outcome is Outcome.PASSED:
            if other is None:
                r = r.model_copy(update={"outcome": Outcome.MISSING, "detail": f"not reported with seed {fresh}"})
            elif other.outcome is not Outcome.PASSED:
                detail = f"with seed {fresh}: {other.outcome.value}" + (f": {other.detail}" if other.detail else "")
                r = r.model_copy(update={"outcome": other.outcome, "detail": detail[:1000]})
        results.append(r)
    tampering = [*first.tampering, *(f"seed {fresh}: {t}" for t in second.tampering)]
    if second.tampering and not first.tampering:
        results = void(results, tampering)
    stability = StabilitySignals(
        warnings=sorted(set(first.stability.warnings) | set(second.stability.warnings)),
        crashes=[*first.stability.crashes, *(f"seed {fresh}: {c}" for c in second.stability.crashes)],
    )
    return first.model_copy(
        update={
            "results": results,
            "stability": stability,
            "seeds": [*first.seeds, *second.seeds],
            "tampering": tampering,
            "exploits": merged([*first.exploits, *second.exploits]),
            "duration_s": first.duration_s + second.duration_s,
        }
    )
