"""Narrowed runs: a tests-only run, a chosen set of judges, no generated tests; and the scorecard
flag that says plainly what such a run left out. Pure but for ``narrowed``, which reads the judge
registry. Design notes: docs/configuration.md#narrowed-runs.

Correctness (SPEC §1) is ``static_tests`` and ``adversarial``: the challenge's tests, and the
adversarial tests, pre-built and generated from the submission. A tests-only run runs every test
and seats only the judges whose verdicts feed those two components; every other component is then
"not scored" and every profile that weighs one is provisional.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from bouts.scoring.catalogue import COMPONENTS, VERDICT_COMPONENTS
from bouts.scoring.review import Flag

CORRECTNESS = COMPONENTS["correctness"].fed_by
"""``static_tests`` and ``adversarial``: what SPEC §1's correctness is made of."""
FEEDS_CORRECTNESS = frozenset(v for c in CORRECTNESS for v in COMPONENTS[c].fed_by if v in VERDICT_COMPONENTS)
"""Verdict components that feed those (the generated adversarial tests' verdict); a judge of any
other component is not seated by a tests-only run."""
NOT_RUN_FLAG = "not_run"


class HasComponent(Protocol):
    """What this module reads of a judge (``bouts.judges.base.Judge``)."""

    name: str
    component: str


def correctness_judges(judges: Iterable[HasComponent]) -> tuple[str, ...]:
    """The names of the judges in ``judges`` that a tests-only run seats."""
    return tuple(j.name for j in judges if j.component in FEEDS_CORRECTNESS)


def not_run(
    seated: Sequence[str], registered: Sequence[str], *, generation_asked: bool, generation_run: bool
) -> Flag | None:
    """The ``not_run`` flag of a narrowed run: the registered judges that did not sit and, when the
    challenge asks for them, generated adversarial tests that were not run. None for a full run."""
    left_out = [name for name in registered if name not in set(seated)]
    parts = []
    if left_out:
        parts.append(f"judges {', '.join(left_out)}")
    if generation_asked and not generation_run:
        parts.append("the adversarial tests generated from the submission (the challenge asks for them)")
    if not parts:
        return None
    return Flag(
        NOT_RUN_FLAG,
        "not run (a narrowed run: --tests-only, --judges or --no-generated): "
        + "; ".join(parts)
        + ". The components they score are not scored, and the profiles that weigh them are provisional.",
    )


def narrowed(seated: Sequence[HasComponent], *, generation_asked: bool, generation_run: bool) -> tuple[Flag, ...]:
    """The ``not_run`` flag of a run that seated ``seated`` (none for a full run), for the pipeline."""
    from bouts.judges.base import JUDGES

    flag = not_run([j.name for j in seated], JUDGES.names(), generation_asked=generation_asked,
                   generation_run=generation_run)  # fmt: skip
    return (flag,) if flag else ()
