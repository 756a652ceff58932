"""Run the judges around the test run: the ones that need no test evidence run concurrently with
the tests, the rest after. A judge that breaks never breaks the scorecard: its verdict becomes
"not scored" with the reason, and a flag says so. I/O edge (judges read files and run tools).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from bouts.errors import BoutsError, InfrastructureError
from bouts.judges.base import JUDGES, Judge, JudgeInput, Verdict
from bouts.models.results import RunReport
from bouts.models.trajectory import Trajectory
from bouts.scoring.catalogue import check_verdict
from bouts.scoring.explain import NotScored
from bouts.scoring.review import Flag
from bouts.scoring.withholding import withheld

log = logging.getLogger(__name__)
MAX_PARALLEL_JUDGES = 4


@dataclass(frozen=True)
class JudgeRun:
    verdicts: tuple[Verdict, ...]
    flags: tuple[Flag, ...]


def builtin_judges(names: Sequence[str] | None = None) -> list[Judge]:
    """The judges to seat: ``names`` from the registry, or every registered judge."""
    import bouts.judges.builtin  # noqa: F401  (registers the built-in judges)

    judges = [JUDGES.create(name) for name in (names if names is not None else JUDGES.names())]
    for judge in judges:  # a judge of a component nobody can place is refused before anything runs
        check_verdict(judge.name, judge.component)
    return judges


def _safe(judge: Judge, inp: JudgeInput) -> tuple[Verdict, Flag | None]:
    try:
        return judge.judge(inp), None
    except InfrastructureError as exc:
        why = f"{judge.name} could not run (infrastructure, not the agent's fault): {exc.describe()}"
        return Verdict(judge.name, judge.component, NotScored(why)), Flag("judge_unavailable", why, level=1)
    # Anything else a judge raises, it raised reading this submission's own content: the submission's
    # doing (SPEC §6), so the judge sits as a 0 instead of being rescaled away (bouts.scoring.withholding).
    except BoutsError as exc:
        why = f"{judge.name} failed on the submission's content: {exc.describe()}"
        return Verdict(judge.name, judge.component, withheld(why)), Flag("judge_error", why, level=1)
    except Exception as exc:  # a judge bug must not lose the whole scorecard
        log.exception("judge %s failed", judge.name)
        why = f"{judge.name} failed on the submission's content: {type(exc).__name__}: {exc}"
        return Verdict(judge.name, judge.component, withheld(why)), Flag("judge_error", why, level=1)


def judge_around(
    judges: Sequence[Judge],
    inp: JudgeInput,
    run_tests: Callable[[], RunReport],
) -> tuple[RunReport, JudgeRun]:
    """Run ``run_tests()`` while the judges that need no run report work beside it; then the rest.

    ``run_tests`` returns the RunReport; judges with ``needs_run = True`` get it in ``inp.run``.
    """
    early = [j for j in judges if not getattr(j, "needs_run", False)]
    late = [j for j in judges if getattr(j, "needs_run", False)]
    results: list[tuple[Verdict, Flag | None]] = []
    with ThreadPoolExecutor(max_workers=MAX_PARALLEL_JUDGES, thread_name_prefix="judge") as pool:
        futures: list[Future[tuple[Verdict, Flag | None]]] = [pool.submit(_safe, j, inp) for j in early]
        report = run_tests()
        with_run = replace(inp, run=report)
        futures += [pool.submit(_safe, j, with_run) for j in late]
        results = [f.result() for f in futures]
    verdicts = tuple(v for v, _ in results)
    flags = tuple(f for _, f in results if f is not None)
    return report, JudgeRun(verdicts, flags)


def read_trajectory(path: Path | None) -> tuple[Trajectory | None, Flag | None]:
    """Load the submission's trajectory; an unreadable one is a flag, and its components score 0 where
    the challenge's profile weighs them (``bouts.scoring.withholding``)."""
    if path is None:
        return None, None
    from bouts.trajectory import load_trajectory

    try:
        trajectory = load_trajectory(path)
    except BoutsError as exc:
        return None, Flag("trajectory_unreadable", f"the trajectory could not be read: {exc.describe()}")
    if trajectory.truncated_line is not None:
        cut = trajectory.truncated_line
        return trajectory, Flag(
            "trajectory_truncated",
            f"the trajectory log is cut in its last line ({cut}); scored on the {len(trajectory.events)} events "
            f"of the lines before it",
        )
    return trajectory, None
