"""``score(...)``: the one entry point the CLI, the API and the workers call. The I/O edge.

It loads the challenge and the submission, runs the tests in the sandbox while the judges that need
no test evidence read the submission (``bouts.judging``), then the rest, and hands the measurements
to the pure ``bouts.assemble.build_scorecard``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from bouts.adversarial import (
    GeneratedRun,
    Prepared,
    finish_generated,
    prepare_generated,
    run_generated,
    run_prepared,
    to_model,
)
from bouts.assemble import Measurements, build_scorecard
from bouts.errors import SandboxError
from bouts.judges.base import JudgeInput
from bouts.judging import builtin_judges, judge_around, read_trajectory
from bouts.languages import language_of
from bouts.loading import check_matches, load_challenge, load_submission, severity_for
from bouts.loading.view import build_view
from bouts.models.challenge import Challenge
from bouts.models.results import RunReport, TestResult
from bouts.models.scorecard import Recording, Scorecard, TrajectoryProvenance
from bouts.models.submission import SubmissionMeta
from bouts.models.trajectory import Trajectory
from bouts.modes import narrowed
from bouts.runner import (
    RunOptions,
    SecretIndex,
    grade_with,
    merged_exploits,
    run_pytest,
    scrub_report,
    scrub_result,
    secret_index,
)
from bouts.sandbox import get_sandbox
from bouts.scoring.withholding import TrajectoryState


@dataclass(frozen=True)
class ScoreConfig:
    """How to score; typed and passed down (drivers read the environment, not this module)."""

    sandbox: str = "bubblewrap"
    seed: int | None = None
    """Override of the challenge's published seed (reproduce a scorecard's run)."""
    fresh_seed: int | None = None
    """The hidden tests' second-phase seed; ``None``: a fresh random one (reproduce: the scorecard's
    second seed)."""
    cache_dir: Path | None = None
    """Engine-private directory for reference-solution runs (expected test ids); ``None``: cached in
    memory for this process only."""
    workers: int = 2
    """Tests run at once inside the sandbox."""
    judges: tuple[str, ...] | None = None
    """Registered judges to seat (``bouts.judges.base.JUDGES``); ``None``: every registered judge."""
    adversarial_generation: bool | None = None
    """Generate adversarial tests from the submission's code; ``None``: the challenge's
    ``[adversarial] generate``."""
    adversarial_seed: int | None = None
    """Seed of the generated adversarial tests; ``None``: the published seed (recorded on the scorecard)."""
    postgres_dsn: str | None = None
    """libpq DSN of a PostgreSQL server for challenges with ``services = ["postgres"]`` (e.g.
    ``host=/var/run/postgresql dbname=test``); ``None``: such challenges run their other variants."""
    postgres_socket_dir: Path | None = None
    """Host directory of that server's unix socket, bind-mounted read-only (the sandbox has no network)."""
    overturned: tuple[str, ...] = ()
    """Integrity bright lines a reviewer overturned (``bouts.calibration.review.overturn``): the
    submission is scored without them (no integrity cliff, no −25), and the scorecard says so."""
    advisories: Path | None = None
    """The OSV advisory store (written by ``bouts advisories import``) that the security judge checks the
    submission's pinned dependencies against; ``None``: not checked, and the scorecard says so."""

    def reproducing(self, card: Scorecard) -> ScoreConfig:
        """This configuration with the seeds ``card`` recorded (published, fresh, generated tests'),
        where none was set explicitly: what ``bouts score --reproduce`` scores with."""
        seeds = card.reproducibility.seeds
        generated = card.generated_adversarial
        return replace(
            self,
            seed=self.seed if self.seed is not None else (seeds[0] if seeds else None),
            fresh_seed=self.fresh_seed if self.fresh_seed is not None else (seeds[1] if len(seeds) > 1 else None),
            adversarial_seed=self.adversarial_seed if self.adversarial_seed is not None
            else (generated.seed if generated is not None else None),
        )  # fmt: skip

    def run_options(self, challenge: Challenge) -> RunOptions:
        """The runner's options for ``challenge``: services only where the challenge asks for them."""
        wants_pg = "postgres" in challenge.spec.services and self.postgres_dsn is not None
        return RunOptions(
            workers=self.workers,
            postgres=self.postgres_dsn if wants_pg else None,
            postgres_socket_dir=self.postgres_socket_dir if wants_pg else None,
            cache_dir=self.cache_dir,
        )


def postgres_options(dsn: str | None) -> dict[str, object]:
    """``ScoreConfig`` fields for a PostgreSQL server given by its libpq ``dsn`` (the CLI's
    ``--postgres``, the service's ``BOUTS_POSTGRES_DSN``): the DSN and the socket directory to mount,
    since the sandbox has no network, only the socket. Empty: none."""
    if not dsn:
        return {}
    from bouts.errors import InputError

    host = next((part.split("=", 1)[1] for part in dsn.split() if part.startswith("host=")), "")
    if not host.startswith("/"):
        raise InputError("the sandbox has no network: give 'host=/path/to/socket/dir' in the DSN", field="postgres")
    if not any(part.startswith("user=") for part in dsn.split()):
        raise InputError("name the database user ('user=...'): the sandbox's user has no name", field="postgres")
    return {"postgres_dsn": dsn, "postgres_socket_dir": Path(host)}


def score(
    challenge_path: Path,
    submission_path: Path,
    *,
    config: ScoreConfig = ScoreConfig(),
    progress: Callable[[TestResult], None] | None = None,
    on_start: Callable[[Challenge, int], None] | None = None,
    recording: Recording | None = None,
) -> Scorecard:
    """Score one submission (a directory or a .tar.gz/.zip) against one challenge directory.

    Raises ``InputError`` subclasses for malformed input. An infrastructure failure of the sandbox
    is recorded on the scorecard (``infra_error``), never scored as the agent's failure.
    ``recording`` is given only by a driver that ran the agent itself (``bouts.agents``).
    """
    m = measure(challenge_path, submission_path, config=config, progress=progress, on_start=on_start,
                recording=recording)  # fmt: skip
    card = build_scorecard(m.challenge, m.meta, m.measurements)
    return card.model_copy(update={"trajectory": m.provenance})


@dataclass(frozen=True)
class Measured:
    """Everything ``score`` measured about one submission, before the pure core turns it into a
    scorecard (``bouts.assemble.build_scorecard``)."""

    challenge: Challenge
    meta: SubmissionMeta
    measurements: Measurements
    provenance: TrajectoryProvenance


def measure(
    challenge_path: Path,
    submission_path: Path,
    *,
    config: ScoreConfig = ScoreConfig(),
    progress: Callable[[TestResult], None] | None = None,
    on_start: Callable[[Challenge, int], None] | None = None,
    recording: Recording | None = None,
) -> Measured:
    """The I/O half of :func:`score`: load, run the tests and the judges, and return the measurements."""
    challenge = load_challenge(challenge_path)
    sandbox = get_sandbox(config.sandbox)
    with tempfile.TemporaryDirectory(prefix="bouts-submission-") as tmp:
        submission = load_submission(submission_path, Path(tmp))
        check_matches(challenge, submission)
        if on_start:
            on_start(challenge, sum(len(f) for f in challenge.test_files.values()))
        trajectory, trajectory_flag = read_trajectory(submission.trajectory_path)
        view = build_view(challenge, submission.code_dir, submission.deliverables_dir)  # read once, here
        inp = JudgeInput(
            challenge=challenge, view=view, trajectory=trajectory,
            seed=config.seed if config.seed is not None else challenge.spec.tests.seed,
            dropped_links=submission.dropped_links, advisories=config.advisories, cache_dir=config.cache_dir,
            recorded=recording is not None,
        )  # fmt: skip

        generated: list[GeneratedRun] = []
        gen_on = config.adversarial_generation
        gen_on = challenge.spec.adversarial.generate if gen_on is None else gen_on
        options = config.run_options(challenge)
        # Everything the sandbox said is scrubbed of the hidden tests and the reference here, the one
        # place every run report passes before a judge, a scorecard or a callback sees it (docs/sandbox.md,
        # "What leaves the sandbox").
        secrets = secret_index(challenge, config.cache_dir)
        on_result = None if progress is None else (lambda r: progress(scrub_result(r, secrets)))

        gen_seed = config.adversarial_seed if config.adversarial_seed is not None else inp.seed
        one = replace(options, workers=1)

        def run_generated_tests(prepared: Prepared | None) -> GeneratedRun:
            # Engine-written tests, run in the same sandbox as every other test, in a session of their
            # own (their own limits and canaries), beside the graded run and off its critical path. One
            # worker: a second collects the file (hypothesis) again for a few tests (docs/benchmarks.md).
            if prepared is not None:
                return run_prepared(prepared, submission.code_dir, sandbox=sandbox, seed=gen_seed, options=one)
            return run_generated(challenge, submission.code_dir, sandbox=sandbox, options=one, seed=gen_seed,
                                 code=view.judged,
                                 cache_dir=config.cache_dir)  # the reference's answers: docs/adversarial.md

        def prepared_here() -> Prepared | GeneratedRun | None:
            """The generated tests, generated before the graded session starts where they may run in its
            first phase (docs/sandbox.md, "Generated tests in the graded session"): Python's runner and
            the published seed. ``None``: generated and run in a session of their own, beside it."""
            if not gen_on or gen_seed != inp.seed or not shares_session(challenge):
                return None
            return prepare_generated(challenge, submission.code_dir, sandbox=sandbox, seed=gen_seed, options=one,
                                     cache_dir=config.cache_dir, code=view.judged)  # fmt: skip

        def run_tests() -> RunReport:
            prepared = prepared_here()
            if isinstance(prepared, GeneratedRun):  # nothing to run: the verdict says why
                generated.append(_scrub_generated(prepared, secrets))
            # A file that imports hypothesis keeps a session of its own with two workers or more: the
            # graded session's workers (clones of the one that collected) would carry hypothesis into
            # every test process they fork, and merged it saved no CPU and cost wall time
            # (room-bookings, docs/benchmarks.md "Clones").
            part = prepared if isinstance(prepared, Prepared) and not (prepared.draws() and options.workers > 1) \
                else None  # fmt: skip
            own = prepared if isinstance(prepared, Prepared) and part is None else None
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bouts-generated") as pool:
                alone = gen_on and (prepared is None or own is not None)
                pending = pool.submit(run_generated_tests, own) if alone else None
                try:
                    run, beside = grade_with(
                        challenge, submission.code_dir, sandbox=sandbox, progress=on_result, seed=config.seed,
                        fresh_seed=config.fresh_seed, cache_dir=config.cache_dir, options=options,
                        part=part.part() if part is not None else None,
                    )  # fmt: skip
                    if part is not None:
                        assert beside is not None
                        generated.append(_scrub_generated(finish_generated(part, beside), secrets))
                    if pending is not None:  # a sandbox that failed under the generated tests fails the run too
                        generated.append(_scrub_generated(pending.result(), secrets))
                except SandboxError as exc:
                    generated.clear()
                    run = RunReport(results=[], sandbox=sandbox.name, infra_error=exc.describe())
            if recording is not None and recording.exploits:  # stopped in the agent's sandbox (bouts.agents)
                run = run.model_copy(update={"exploits": merged_exploits([*recording.exploits, *run.exploits])})
            return scrub_report(_with_severities(challenge, run), secrets)

        judges = builtin_judges(config.judges)
        run, judged = judge_around(judges, inp, run_tests)
        texts = {d.path: view.document(d.path)[0] for d in challenge.spec.deliverables}
        left_out = narrowed(judges, generation_asked=challenge.spec.adversarial.generate, generation_run=gen_on)
        notes = ((trajectory_flag,) if trajectory_flag else ()) + judged.flags + left_out
        verdicts = (*judged.verdicts, *(g.verdict for g in generated))
        gen_model = to_model(generated[0]) if generated else None
        measurements = Measurements(
            run, texts, submission.content_hash, verdicts, notes, gen_model, view.excluded,
            trajectory=_trajectory_state(submission.trajectory_path, trajectory),
            trajectory_detail=trajectory_flag.message if trajectory is None and trajectory_flag else "",
            overturned=frozenset(config.overturned),
        )  # fmt: skip
        return Measured(challenge, submission.meta, measurements, TrajectoryProvenance.of(trajectory, recording))


def _trajectory_state(path: Path | None, trajectory: Trajectory | None) -> TrajectoryState:
    """``absent``: the submission brought no log; ``unreadable``: one the engine could not read."""
    if trajectory is not None:
        return "present"
    return "absent" if path is None else "unreadable"


def shares_session(challenge: Challenge) -> bool:
    """Whether the challenge's runner can run the generated tests in the graded session (Python's)."""
    return language_of(challenge).part("runner") is run_pytest


def _scrub_generated(run: GeneratedRun, secrets: SecretIndex) -> GeneratedRun:
    """The generated run's report and the findings quoting it, scrubbed like every run report."""
    if run.report is None:
        return run
    ids = secrets.grams_of(r.id for r in run.report.results)
    findings = tuple(replace(f, message=secrets.scrub(f.message, public=ids)) for f in run.verdict.findings)
    return replace(run, report=scrub_report(run.report, secrets), verdict=replace(run.verdict, findings=findings))


def _with_severities(challenge: Challenge, run: RunReport) -> RunReport:
    results = [
        r.model_copy(update={"severity": severity_for(challenge, r.id)}) if r.suite == "adversarial" else r
        for r in run.results
    ]
    return run.model_copy(update={"results": results})
