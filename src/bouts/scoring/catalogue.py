"""The one catalogue of scored components: every component's name, what it measures, what feeds it,
its weight in each profile, and the version label of the scoring rules beside the weights it versions.

Everything else reads this: the profiles (``bouts.scoring.profiles``), the scorecard's component
order and the reason a judged component is pending (``bouts.assemble``), which components a judge may
return a verdict for (``check_verdict``), ``bouts compute``. A verdict for a component not listed
here is an error naming the judge, never a score silently dropped. Pure data and lookups.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from bouts.errors import BoutsError

SCORING_VERSION = "spec-2026.2"
"""Version label of the formulas and weights below, recorded on every scorecard
(``reproducibility.rule_sets.scoring``). Change it with any weight or formula here.

spec-2026.2: ``objective`` is the engine score of the six components (it was the static/adversarial
pair, now ``correctness``, which decides only whether the work was correct)."""

Source = Literal["run", "judges", "derived"]


@dataclass(frozen=True)
class ComponentInfo:
    """One scored component of SPEC §1."""

    name: str
    measures: str
    source: Source
    """``run``: measured from the test run; ``judges``: from the verdicts of the judges that sat;
    ``derived``: computed from other components."""
    fed_by: tuple[str, ...]
    """``judges``: the verdict components whose verdicts feed it (the judges that return them sit on
    its panel); ``run``: the run report's parts it reads; ``derived``: the components it is made of."""
    pending: str = ""
    """``judges``: why it has no score when no judge for it sat."""


CATALOGUE: tuple[ComponentInfo, ...] = (
    ComponentInfo("static_tests", "correctness: visible + hidden tests, all-or-nothing per test", "run",
                  ("visible and hidden test outcomes",)),
    ComponentInfo("adversarial", "defensive programming: severity-weighted adversarial tests", "run",
                  ("pre-built adversarial test outcomes", "adversarial_generated")),
    ComponentInfo("code_quality", "readability, architecture, robustness, idiomaticity", "judges",
                  ("code_quality",), "no code-quality judge sat"),
    ComponentInfo("deliverables", "written outputs: accuracy, clarity, completeness, actionability", "judges",
                  ("deliverables",), "no deliverables judge sat"),
    ComponentInfo("security", "vulnerabilities the submission introduced over starter/", "judges",
                  ("security",), "no security scanner sat"),
    ComponentInfo("stability", "clean execution: warnings, crashes, OOM kills, timeouts", "run",
                  ("the run's stability record",)),
    ComponentInfo("objective", "the submitted work judged on its own: the engine score of the six components",
                  "derived", ("static_tests", "adversarial", "code_quality", "deliverables", "security", "stability")),
    ComponentInfo("correctness", "did it produce correct outputs (only where a rule asks whether the work was correct)",
                  "derived", ("static_tests", "adversarial")),
    ComponentInfo("process", "how the agent worked, from its trajectory", "judges", ("process",),
                  "no trajectory judge sat"),
    ComponentInfo("strategy", "decomposition and architecture", "judges", ("strategy",), "no trajectory judge sat"),
    ComponentInfo("integrity", "did it play fair", "judges", ("integrity",), "no integrity judge sat"),
    ComponentInfo("recovery", "getting back on track after errors", "judges", ("recovery",),
                  "no trajectory judge sat"),
    ComponentInfo("efficiency", "waste: churn, token burn, tool misuse", "judges", ("efficiency",),
                  "no trajectory judge sat"),
)
COMPONENTS: Mapping[str, ComponentInfo] = {c.name: c for c in CATALOGUE}
ORDER: tuple[str, ...] = tuple(c.name for c in CATALOGUE)
"""The scorecard's component order."""
JUDGED: tuple[str, ...] = tuple(c.name for c in CATALOGUE if c.source == "judges" and c.name != "integrity")
"""Components scored by a judge panel (``bouts.combine``); integrity merges signals instead."""
GENERATED = "adversarial_generated"
"""The verdict of the generated adversarial tests: it feeds ``adversarial`` (its generated share)."""
VERDICT_COMPONENTS: frozenset[str] = frozenset({*(c.name for c in CATALOGUE if c.source == "judges"), GENERATED})
"""The components a judge may return a verdict for (``Verdict.component``)."""

ENGINE_WEIGHTS: Mapping[str, float] = {
    "static_tests": 0.35,
    "adversarial": 0.15,
    "code_quality": 0.20,
    "deliverables": 0.15,
    "security": 0.10,
    "stability": 0.05,
}
FOUR_JUDGE_WEIGHTS: Mapping[str, float] = {"objective": 0.50, "process": 0.20, "strategy": 0.20, "integrity": 0.10}
CORRECTNESS_WEIGHTS: Mapping[str, float] = {"static_tests": 0.35, "adversarial": 0.15}
"""``correctness = (0.35·static_tests + 0.15·adversarial) / 0.50``: the engine's two test components."""
COMPOSITE_COMPONENTS: tuple[str, ...] = ("objective", "process", "strategy", "recovery", "efficiency")
"""The composite's weights come from the challenge's family (``bouts.scoring.weights.FAMILIES``) or
its checked override; its adjustments (integrity, exploits, calibration) are not weights."""
PROFILES: tuple[str, ...] = ("engine", "four-judge", "composite")


class UnknownComponentError(BoutsError):
    """A judge returned (or declares) a component the catalogue does not list: the judge's bug."""


def check_verdict(judge: str, component: str) -> None:
    """Refuse a verdict (or a judge declaration) for a component the catalogue does not list."""
    if component not in VERDICT_COMPONENTS:
        raise UnknownComponentError(
            f"judge '{judge}' returned a verdict for unknown component '{component}'; "
            f"known: {', '.join(sorted(VERDICT_COMPONENTS))}"
        )
