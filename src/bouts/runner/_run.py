"""``run_suites``: grade a submission's code against a challenge's test suites in a sandbox.

Flow: assemble a fresh workspace (pristine tests plus randomly named canaries) → start the
trusted supervisor (``sandboxed/_bouts_driver``) in the sandbox with the write end of a pipe →
read one JSON record per line as tests finish → judge integrity and assemble one outcome per id,
all on the host. See ``docs/sandbox.md`` for the guarantees and their limits.
"""

from __future__ import annotations

import contextlib
import os
import random
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from bouts.errors import SandboxError
from bouts.languages import language_of
from bouts.loading import severity_for
from bouts.models.challenge import SUITES, Challenge, Limits, Suite
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.prepare import DEFAULT_CACHE, prepare_dependencies
from bouts.runner import _batch
from bouts.runner._channel import Record, parse_record
from bouts.runner._decide import check_test
from bouts.runner._exploits import observed
from bouts.runner._externalise import REWRITTEN_SUITES, FilePlan
from bouts.runner._integrity import CanaryIds, findings, looked, unlooked, void
from bouts.runner._plans import plan_for
from bouts.runner._session import DRIVER_LIB, compile_driver, session_config, supervisor_argv
from bouts.runner._session import LIB_TARGET as _LIB_TARGET
from bouts.runner._session import driver_env as _driver_env
from bouts.runner._supervise import supervise
from bouts.runner._verdicts import RunEnd, assemble, counts_by_suite, to_result
from bouts.runner._visible import visible_distributions, visible_modules
from bouts.runner._workspace import assemble_workspace, plant_canaries, seal_tests, write_generated
from bouts.sandbox import Mount, Sandbox, tree_bytes

_DEPS_TARGET = "/bouts/deps"
_STARTUP_GRACE_S = 15.0
"""Wall time allowed on top of the suites' budgets for interpreter start and collection."""
DEFAULT_WORKERS = 2


@dataclass(frozen=True)
class RunOptions:
    """How to run, beyond the challenge's own limits."""

    workers: int = DEFAULT_WORKERS
    """Test processes running at once (one per core is right for CPU-bound suites)."""
    postgres: str | None = None
    """A libpq DSN for the ``bouts_pg`` fixture (e.g. ``host=/var/run/postgresql dbname=test``);
    ``None``: the sandbox gets no PostgreSQL access."""
    postgres_socket_dir: Path | None = None
    """Host directory of the server's unix socket, bind-mounted at the same path (no network)."""
    canaries: bool = True
    deps_cache: Path = DEFAULT_CACHE
    """Where challenges' prepared dependency environments live (``bouts.prepare``)."""
    tests_per_process: int | None = None
    """Tests a forked test process may run one after another (docs/sandbox.md, "Tests per
    process"); ``None``: the challenge's ``[tests] tests_per_process`` (1 unless it says otherwise).
    1: a fresh process per test. More: a process runs tests until it has run this many
    or a test errored, crashed or left anything behind; each test keeps its own timeout and output
    cap, and a crash or hang costs only the test that was running. A test's changes to the
    process's memory are seen by the tests after it in the same process."""
    cache_dir: Path | None = None
    """The engine's cache (``bouts.cache.Store``), where the test files' rewrites are kept
    (``_plans``); None: in this process's memory only."""


DEFAULT_OPTIONS = RunOptions()


@dataclass(frozen=True)
class DetailedRun:
    """A :class:`RunReport` plus what only the reference machinery needs."""

    report: RunReport
    observations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per test id, digests of the values passed to ``bouts_expect`` (passed tests only; JavaScript)."""
    occurrences: Mapping[str, tuple[object, ...]] = field(default_factory=dict)
    """Per passed test id, its externalised assertions' observations (a golden run's are the
    reference values the graded runs are held to)."""
    fresh: DetailedRun | None = None
    """The hidden suite's fresh-seed phase, when one was asked for (:class:`FreshPhase`)."""
    generated: DetailedRun | None = None
    """The engine's generated tests' part of the first phase, when they ran in the session of the
    challenge's suites (:class:`GeneratedPart`), concluded apart: as their own session would be."""
    seed_readers: frozenset[str] | None = None
    """A golden (reference) run's tests that may have read the phase's seed, and ``""`` if a
    worker's collection may have (``_bouts_driver.seedwatch``); ``None``: not watched (every other
    run), as if all had."""


@dataclass(frozen=True)
class Expectations:
    """What a phase's results are held to (see :func:`run_suites`)."""

    expected_ids: Sequence[str] | None = None
    golden: Mapping[str, Sequence[str]] | None = None
    golden_occurrences: Mapping[str, Sequence[object]] | None = None


@dataclass(frozen=True)
class FreshPhase:
    """The hidden suite again with a fresh seed, in the same sandbox session as the first phase
    (docs/sandbox.md, "Two phases, one session"). The seed enters the sandbox only once the first
    phase is over."""

    seed: int
    expect: Callable[[], Expectations]
    """Called once the session is over: the fresh seed's reference run may run meanwhile."""


@dataclass(frozen=True)
class GeneratedPart:
    """The engine's generated tests (``bouts.adversarial``), run in the graded session's first phase
    beside the challenge's suites: their own per-test timeout and suite budget (the driver's
    ``suite_limits``), their own expected ids, and a report of their own (:attr:`DetailedRun.generated`;
    docs/sandbox.md, "Generated tests in the graded session")."""

    files: Mapping[str, str]
    test_timeout_s: float
    suite_timeout_s: float
    expected_ids: Sequence[str]


AssertionMode = Literal["inline", "external", "golden"]
"""How test files' assertions run: as written (``inline``), rewritten so the host decides
(``external``, graded runs), or intact with their operands recorded (``golden``, reference runs)."""


def run_suites(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    suites: Sequence[Suite] = SUITES,
    progress: Callable[[TestResult], None] | None = None,
    seed: int | None = None,
    expected_ids: Sequence[str] | None = None,
    golden: Mapping[str, Sequence[str]] | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
    generated: Mapping[str, str] | None = None,
    assertions: AssertionMode = "inline",
    golden_occurrences: Mapping[str, Sequence[object]] | None = None,
) -> RunReport:
    """Run ``suites`` of ``challenge`` against ``code_dir`` in ``sandbox``; one outcome per test id.

    ``seed`` (default: the published ``challenge.spec.tests.seed``) reaches tests as ``BOUTS_SEED``
    and the ``bouts_seed`` fixture. ``expected_ids`` (ids collected on the reference solution) are
    authoritative: any of them that never reports is ``missing``, and ids outside them are
    ignored. ``golden`` maps a test id to the reference solution's ``bouts_expect`` digests: a
    test passes only if its own digests match. ``progress`` is called in the caller's thread once
    per result as it arrives (before the integrity verdict; a tampered run is voided in the
    returned report). Raises :class:`~bouts.errors.SandboxError` when the sandbox or the
    supervisor could not start; everything the submission does is reported in the result.
    ``generated`` adds engine-written test files (path under ``tests/generated/`` → source,
    ``bouts.adversarial``), trusted like the challenge's tests; they form the ``generated`` suite.
    ``assertions="external"`` rewrites the test files so that no expected value enters the sandbox;
    ``golden_occurrences`` (a golden run's :attr:`DetailedRun.occurrences`) are then what each
    test's observations are held to.
    """
    return run_detailed(
        challenge, code_dir, sandbox=sandbox, suites=suites, progress=progress, seed=seed,
        expected_ids=expected_ids, golden=golden, options=options, generated=generated,
        assertions=assertions, golden_occurrences=golden_occurrences,
    ).report  # fmt: skip


def run_detailed(challenge: Challenge, code_dir: Path, **options: Any) -> DetailedRun:
    """:func:`run_suites`, also returning the observations (``bouts_expect`` digests, externalised
    assertions' values), by the runner the challenge's language names (``bouts.languages``; the
    options are :func:`run_pytest`'s). ``fresh`` (where the language's runner can:
    ``same_session_fresh``) runs the hidden suite again with its seed in the same session, after the
    first phase: :attr:`DetailedRun.fresh`."""
    return language_of(challenge).part("runner")(challenge, code_dir, **options)  # type: ignore[no-any-return]


def run_pytest(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    suites: Sequence[Suite] = SUITES,
    progress: Callable[[TestResult], None] | None = None,
    seed: int | None = None,
    expected_ids: Sequence[str] | None = None,
    golden: Mapping[str, Sequence[str]] | None = None,
    options: RunOptions = DEFAULT_OPTIONS,
    generated: Mapping[str, str] | None = None,
    assertions: AssertionMode = "inline",
    golden_occurrences: Mapping[str, Sequence[object]] | None = None,
    fresh: FreshPhase | None = None,
    select: Sequence[str] | None = None,
    part: GeneratedPart | None = None,
) -> DetailedRun:
    """Python's runner (the language seam's ``runner``): pytest under the engine's driver.
    ``select`` (test ids of ``suites``' files; engine-chosen, never the submission's): only those
    run, their files collected whole. ``part``: the engine's generated tests join the first phase
    under their own limits and are concluded apart (:attr:`DetailedRun.generated`); ``progress``
    hears only the challenge's tests."""
    seed = challenge.spec.tests.seed if seed is None else seed
    if part is not None:
        if generated or select is not None:
            raise ValueError("a generated part runs beside the challenge's suites, not with generated= or select=")
        generated = part.files
    file_suite: dict[str, Suite] = {f: suite for suite in suites for f in challenge.test_files.get(suite, [])}
    own = dict(file_suite)  # the challenge's files, without the generated ones
    file_suite.update({f: "generated" for f in _checked_generated(generated)})
    if select is not None:
        outside = [i for i in select if i.split("::", 1)[0] not in file_suite or "::" not in i]
        if outside:
            raise ValueError(f"selected test ids outside the run's files: {outside[:3]}")
    if not file_suite or select == []:
        return DetailedRun(RunReport(results=[], sandbox=sandbox.name, seeds=[seed]))
    start = time.monotonic()
    limits = challenge.spec.limits
    workdir = challenge.spec.tests.workdir  # an ordinary project path a challenge may declare
    n_suites = len(set(file_suite.values()))
    budget = limits.suite_timeout_s * n_suites
    if part is not None and part.files:  # the generated suite's own budget in place of the challenge's
        budget += part.suite_timeout_s - limits.suite_timeout_s
    isolated = sandbox.isolated
    with tempfile.TemporaryDirectory(prefix="bouts-run-") as tmp:
        workspace = Path(tmp) / "workspace"
        removed = assemble_workspace(code_dir, challenge.root / "tests", workspace,
                                     replaced=language_of(challenge).replaced_by_runner)
        write_generated(workspace, generated)
        plans = _rewrite(workspace, file_suite, assertions, options.cache_dir)
        inline = [f for f in file_suite if f not in plans]  # externalised files need no canary
        canaries = plant_canaries(workspace, inline, random.SystemRandom()) if options.canaries else []
        lib = _LIB_TARGET if isolated else str(DRIVER_LIB)
        compile_driver()
        deps = prepare_dependencies(challenge.root, "python", cache_root=options.deps_cache)
        config = {
            **session_config(file_suite, seed, limits, options.workers),
            "files": sorted(select) if select is not None else sorted(file_suite),
            "workspace": workdir if isolated else str(workspace),
            "lib": lib,
            "tests_per_process": max(1, options.tests_per_process or challenge.spec.tests.tests_per_process),
            "preload": list(challenge.spec.tests.preload),
            "visible": visible_modules(challenge.spec.tests.engine_packages),
            "visible_dists": visible_distributions(challenge.spec.tests.engine_packages),
            "postgres": options.postgres,
            "deps": None if deps is None else (_DEPS_TARGET if isolated else str(deps.path)),
            "track_seed": assertions == "golden",  # trusted code only: the reference's runs
        }
        if part is not None:
            config["suite_limits"] = {
                "generated": {"test_timeout_s": part.test_timeout_s, "suite_timeout_s": part.suite_timeout_s}
            }
        sealed = seal_tests(workspace, Path(tmp) / "tests", workdir) if isolated else []
        mounts = [Mount(DRIVER_LIB, _LIB_TARGET), *sealed] if isolated else []
        if isolated and deps is not None:
            mounts.append(Mount(deps.path, _DEPS_TARGET))
        if isolated and options.postgres_socket_dir is not None:
            mounts.append(Mount(options.postgres_socket_dir, str(options.postgres_socket_dir)))
        fresh_files = {f: "hidden" for f, suite in file_suite.items() if suite == "hidden"} if fresh else {}
        if fresh_files:
            config["fresh_files"] = sorted(fresh_files)
        phase_at: list[float] = []
        timeout_s = budget + limits.suite_timeout_s * bool(fresh_files) + _STARTUP_GRACE_S
        on_result = progress_adapter(challenge, own if part else file_suite, CanaryIds(canaries), progress)
        fresh_at = fresh.seed if fresh and fresh_files else None
        got = None
        if sealed and deps is None and options.postgres is None and assertions != "golden" \
                and tree_bytes(workspace) <= _batch.TREE_MAX:  # fmt: skip
            # A graded run during a batch (``bouts eval``): a session shared with the batch's other
            # submissions, reset between them (docs/sandbox.md, "Batch sessions").
            with _batch.session_for(sandbox, workdir, limits, timeout_s) as session:
                if session is not None:
                    got = session.run(workspace, Path(tmp) / "tests", config, timeout_s=timeout_s,
                                      on_result=on_result, fresh_seed=fresh_at, phase_at=phase_at)  # fmt: skip
        records, end = got if got is not None else _drive(
            sandbox, workspace, mounts, config, lib, limits=limits, timeout_s=timeout_s, on_result=on_result,
            seed=seed, workdir=workdir if isolated else None, fresh_seed=fresh_at, phase_at=phase_at,
        )  # fmt: skip
    if not any(r.kind == "hello" for r in records):
        raise SandboxError(f"the test supervisor did not start in sandbox '{sandbox.name}' ({end})")
    phase = _Phase(challenge, sandbox.name, plans, canaries, assertions, removed, set(config["hidden_files"]))  # type: ignore[arg-type]
    expect = Expectations(expected_ids, golden, golden_occurrences)
    if not fresh_files:
        return phase.first(records, end, file_suite, expect, seed, time.monotonic() - start, part)
    assert fresh is not None
    first, second, first_end = _split(records, end)
    split = phase_at[0] if phase_at else time.monotonic()
    run = phase.first(first, first_end, file_suite, expect, seed, split - start, part)
    again = phase.conclude(second, end, fresh_files, fresh.expect(), fresh.seed, time.monotonic() - split)
    return replace(run, fresh=again)


def _split(records: Sequence[Record], end: RunEnd) -> tuple[list[Record], list[Record], RunEnd]:
    """One session's records as two phases: each with the supervisor's ``hello`` and tamper
    baseline; the first closed by a clean ``done`` if it got to its end."""
    cut = next((i for i, r in enumerate(records) if r.kind == "phase_end"), None)
    if cut is None:  # the session died in the first phase: the second never ran
        return list(records), [r for r in records if r.kind in ("hello", "baseline")], end
    head = [r for r in records[:cut] if r.kind != "done"] + [Record("done", exit_code=0)]
    tail = [r for r in records[: cut] if r.kind in ("hello", "baseline")]
    tail += [r for r in records[cut + 1 :] if r.kind not in ("phase_end", "phase")]
    return head, tail, replace(end, timed_out=False, exit_code=0, signal=None, protocol_violations=0)


@dataclass(frozen=True)
class _Phase:
    """What turns one phase's records into its :class:`DetailedRun`, on the host."""

    challenge: Challenge
    sandbox: str
    plans: Mapping[str, FilePlan]
    canaries: Sequence[str]
    assertions: AssertionMode
    removed: list[str]
    hidden_files: set[str]

    def first(
        self, records: Sequence[Record], end: RunEnd, file_suite: Mapping[str, Suite], expect: Expectations,
        seed: int, duration_s: float, part: GeneratedPart | None,
    ) -> DetailedRun:  # fmt: skip
        """The first phase; with a generated ``part``, split in two: the challenge's suites, and the
        generated suite concluded as its own session would be (inline, its canaries, its expected
        ids), each seeing only its own files' results."""
        gen = {f: s for f, s in file_suite.items() if s == "generated"}
        if part is None:
            return self.conclude(records, end, file_suite, expect, seed, duration_s)
        own = {f: s for f, s in file_suite.items() if s != "generated"}
        mine, theirs = _part(records, gen), _part(records, own)
        escaped = [any(k == "sandbox_escape" for r in x if r.kind in ("result", "exploit") for k, _ in r.exploits)
                   for x in (mine, theirs)]  # fmt: skip
        # The seccomp kills the sandbox saw from outside go to the part whose tests the driver saw
        # killed for a forbidden call; to both when neither (the session's, as each session's were).
        ends = [end if seen or not any(escaped) else replace(end, forbidden_calls=()) for seen in escaped]
        run = self._only(own).conclude(mine, ends[0], own, expect, seed, duration_s)
        apart = replace(self._only(gen), assertions="inline")
        ran = apart.conclude(theirs, ends[1], gen, Expectations(part.expected_ids), seed, duration_s)
        return replace(run, generated=ran)

    def _only(self, files: Mapping[str, Suite]) -> _Phase:
        return replace(self, canaries=[c for c in self.canaries if c.split("::", 1)[0] in files])

    def conclude(
        self, records: Sequence[Record], end: RunEnd, file_suite: Mapping[str, Suite], expect: Expectations,
        seed: int, duration_s: float,
    ) -> DetailedRun:  # fmt: skip
        plans = {f: p for f, p in self.plans.items() if f in file_suite}
        external = self.assertions == "external"
        tampering = findings(records, self.canaries, externalised=external)
        graded = without_canaries(records, CanaryIds(self.canaries))
        if external:
            graded = decide(graded, plans, expect.golden_occurrences or {}, self.hidden_files)
        results, stability = assemble(
            graded,
            file_suite=file_suite,
            expected_ids=expect.expected_ids,
            end=end,
            severity_of=lambda node: severity_for(self.challenge, node),
            golden=expect.golden,
        )
        if tampering:
            results = void(results, tampering)
        seen = looked(graded)
        if seen is None or seen:  # the submission's code looked at who runs it: its passes measure nothing
            results = unlooked(results, seen)
        passed = [r for r in graded if r.kind == "result" and r.outcome is not None and r.outcome == "passed"]
        observations = {r.id: r.observations for r in passed}
        occurrences = {r.id: r.occurrences for r in passed if r.id.split("::")[0] in plans}
        report = RunReport(
            results=results,
            stability=stability,
            sandbox=self.sandbox,
            removed=self.removed,
            seeds=[seed],
            duration_s=duration_s,
            tampering=tampering,
            exploits=observed(graded, end),
            assertions=counts_by_suite((file_suite[rel], *p.counts) for rel, p in plans.items()) if external else [],
        )
        readers = None
        if self.assertions == "golden":
            readers = frozenset(r.id for r in graded if r.kind == "result" and r.seeded)
            readers |= {""} if any(r.kind == "integrity" and r.seeded for r in graded) else set()
        return DetailedRun(report, observations, occurrences, seed_readers=readers)


def _rewrite(
    workspace: Path, file_suite: Mapping[str, Suite], mode: AssertionMode, cache_dir: Path | None
) -> dict[str, FilePlan]:
    """Rewrite the workspace's copies of the challenge's test files for ``mode``; their plans."""
    if mode == "inline":
        return {}
    plans: dict[str, FilePlan] = {}
    for rel, suite in file_suite.items():
        path = workspace / rel
        if suite not in REWRITTEN_SUITES or path.suffix != ".py" or not path.is_file():
            continue
        plan = plan_for(rel, path.read_text(encoding="utf-8", errors="replace"), cache_dir)
        path.write_text(plan.external if mode == "external" else plan.golden, encoding="utf-8")
        plans[rel] = plan
    return plans


def decide(
    records: Sequence[Record],
    plans: Mapping[str, FilePlan],
    golden: Mapping[str, Sequence[object]],
    hidden_files: set[str],
) -> list[Record]:
    """The host's verdicts: a test the sandbox reports passed passes only if its observations hold
    against the expected values the host kept (``_decide.check_test``)."""
    sites = {k: site for plan in plans.values() for k, site in plan.sites.items()}
    out: list[Record] = []
    for rec in records:
        plan = plans.get(rec.id.split("::")[0]) if rec.kind == "result" else None
        if plan is not None and rec.outcome is not None and rec.outcome == "passed":
            gold = golden.get(rec.id)
            if gold is None:
                why: str | None = "the reference solution does not pass this test"
            else:
                why = check_test(sites, rec.occurrences, gold, overflow=rec.obs_overflow)
            if why is not None:
                detail = "an assertion did not hold" if rec.id.split("::")[0] in hidden_files else why
                rec = replace(rec, outcome=Outcome.FAILED, detail=detail)
        out.append(rec)
    return out


def _checked_generated(generated: Mapping[str, str] | None) -> list[str]:
    """Generated test paths, each a ``tests/generated/test_*.py`` file (engine-written, but a path
    is still never allowed to climb out of the workspace)."""
    paths = sorted(generated or {})
    for rel in paths:
        parts = rel.split("/")
        if parts[:2] != ["tests", "generated"] or ".." in parts or not parts[-1].startswith("test_"):
            raise ValueError(f"generated test path must be tests/generated/test_*.py, got {rel!r}")
    return paths


def _part(records: Sequence[Record], others: Mapping[str, Suite]) -> list[Record]:
    """The session's records without the results, collection errors, warnings and exploit reports of
    the test files ``others`` (another part's). What the session as a whole said (its integrity, crashes,
    end) stays: each part is judged on it, as if it had run alone and seen the same."""
    out = []
    for rec in records:
        if rec.kind in ("result", "collect_error", "warning", "exploit") and rec.id and rec.id.split("::")[0] in others:
            continue
        out.append(rec)
    return out


def without_canaries(records: Sequence[Record], canaries: set[str]) -> list[Record]:
    """The records with every trace of the canaries removed (they are not the submission's tests)."""
    out: list[Record] = []
    for rec in records:
        if rec.kind == "result" and rec.id in canaries:
            continue
        if rec.kind == "collected":
            rec = Record("collected", ids=tuple(i for i in rec.ids if i not in canaries))
        out.append(rec)
    return out


def progress_adapter(
    challenge: Challenge,
    file_suite: dict[str, Suite],
    canaries: set[str],
    progress: Callable[[TestResult], None] | None,
) -> Callable[[Record], None]:
    """What hears each ``result`` record (Python's as they arrive, JavaScript's after the session):
    ``progress`` gets it as a :class:`TestResult`, canaries and outcome-less records left out."""

    def on_result(rec: Record) -> None:
        if progress is None or rec.outcome is None or rec.id in canaries:
            return
        result = to_result(
            rec.id, rec.outcome, rec.detail, rec.duration_s,
            file_suite=file_suite, severity_of=lambda node: severity_for(challenge, node),
        )  # fmt: skip
        if result is not None:
            progress(result)

    return on_result


def _drive(
    sandbox: Sandbox,
    workspace: Path,
    mounts: list[Mount],
    config: dict[str, object],
    lib: str,
    *,
    limits: Limits,
    timeout_s: float,
    on_result: Callable[[Record], None],
    seed: int,
    workdir: str | None = None,
    fresh_seed: int | None = None,
    phase_at: list[float] | None = None,
) -> tuple[list[Record], RunEnd]:
    """Run the supervisor in a worker thread while this thread reads the result pipe.

    With ``fresh_seed``, the supervisor gets the read end of a second pipe and this side writes the
    seed on it when the first phase reports its end (``phase_at`` gets the time); only the first
    phase's results go to ``on_result``."""
    read_fd, write_fd = os.pipe()
    seed_r, seed_w = os.pipe() if fresh_seed is not None else (-1, -1)
    config = {**config, "result_fd": write_fd, **({"seed_fd": seed_r} if fresh_seed is not None else {})}
    argv = supervisor_argv(lib, config, plain=sandbox.isolated)
    first_phase = [True]

    def to_record(line: bytes) -> Record:
        rec = parse_record(line)
        if rec.kind == "result" and first_phase[0]:
            on_result(rec)
        elif rec.kind == "phase_end" and first_phase[0] and fresh_seed is not None:
            first_phase[0] = False
            if phase_at is not None:
                phase_at.append(time.monotonic())
            with contextlib.suppress(OSError):
                os.write(seed_w, f"{fresh_seed}\n".encode())
        return rec

    try:
        return supervise(
            sandbox, argv, workspace=workspace, env=_driver_env(seed, sandbox.isolated), limits=limits,
            timeout_s=timeout_s, mounts=mounts, read_fd=read_fd,
            pass_fds=[write_fd, *([seed_r] if fresh_seed is not None else [])],
            to_record=to_record, workdir=workdir,
        )  # fmt: skip
    finally:
        if fresh_seed is not None:
            os.close(seed_w)
