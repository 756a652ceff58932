"""Composite weights: the nine families of SPEC §2 and the override rules checked at load time."""

from __future__ import annotations

from dataclasses import dataclass

from bouts.errors import WeightsError
from bouts.scoring.catalogue import COMPOSITE_COMPONENTS

MIN_OBJECTIVE = 0.30
MIN_WEIGHT = 0.05
MIN_SUM = 0.90
MAX_SUM = 1.00
_EPS = 1e-9


@dataclass(frozen=True)
class CompositeWeights:
    """The five composite weights as fractions (0.45 = 45%)."""

    objective: float
    process: float
    strategy: float
    recovery: float
    efficiency: float
    source: str = "default"
    """Family name, or 'custom' for a challenge's own override (shown on the scorecard)."""

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in COMPOSITE_COMPONENTS}

    @property
    def total(self) -> float:
        return sum(self.as_dict().values())

    @property
    def custom(self) -> bool:
        return self.source == "custom"


def _w(o: int, p: int, s: int, r: int, e: int, name: str) -> CompositeWeights:
    return CompositeWeights(o / 100, p / 100, s / 100, r / 100, e / 100, source=name)


FAMILIES: dict[str, CompositeWeights] = {
    name: _w(*ws, name=name)
    for name, ws in {
        "default": (45, 15, 15, 10, 10),
        "blacksite-debug": (45, 20, 10, 20, 5),
        "fog-of-war": (35, 20, 25, 15, 5),
        "false-summit": (40, 15, 10, 15, 10),
        "versus-arena": (30, 15, 25, 20, 10),
        "marathon-strategy": (30, 15, 30, 15, 10),
        "constraint-maze": (40, 20, 20, 10, 10),
        "recovery-lab": (30, 15, 10, 35, 10),
        "humanity-gap": (30, 15, 30, 10, 10),
    }.items()
}


def check_weights(weights: CompositeWeights) -> list[str]:
    """Return every override rule the weights break (empty when they are valid).

    Rules (SPEC §2): objective at least 30% and no smaller than any other weight (ties allowed);
    no weight below 5%; the five weights sum to within 90-100%.
    """
    problems: list[str] = []
    ws = weights.as_dict()
    for name, value in ws.items():
        if not 0 <= value <= 1:
            problems.append(f"{name} weight {value:g} must be a fraction between 0 and 1")
    if weights.objective < MIN_OBJECTIVE - _EPS:
        problems.append(f"objective weight {weights.objective:g} is below the minimum {MIN_OBJECTIVE:g}")
    for name, value in ws.items():
        if name != "objective" and value > weights.objective + _EPS:
            problems.append(f"{name} weight {value:g} is larger than the objective weight {weights.objective:g}")
        if value < MIN_WEIGHT - _EPS:
            problems.append(f"{name} weight {value:g} is below the minimum {MIN_WEIGHT:g}")
    total = weights.total
    if not MIN_SUM - _EPS <= total <= MAX_SUM + _EPS:
        problems.append(f"the five weights sum to {total:g}, outside {MIN_SUM:g}-{MAX_SUM:g}")
    return problems


def resolve_weights(family: str, override: dict[str, float] | None = None) -> CompositeWeights:
    """The composite weights of a challenge: its family's, or its own override, validated.

    Raises ``WeightsError`` naming every broken rule.
    """
    if override is not None:
        missing = [c for c in COMPOSITE_COMPONENTS if c not in override]
        extra = [k for k in override if k not in COMPOSITE_COMPONENTS]
        if missing or extra:
            raise WeightsError(
                f"an override needs exactly the weights {', '.join(COMPOSITE_COMPONENTS)}"
                + (f"; missing {', '.join(missing)}" if missing else "")
                + (f"; unknown {', '.join(extra)}" if extra else ""),
                field="weights",
            )
        weights = CompositeWeights(**{c: float(override[c]) for c in COMPOSITE_COMPONENTS}, source="custom")
    else:
        if family not in FAMILIES:
            raise WeightsError(f"unknown family '{family}'; known families: {', '.join(FAMILIES)}", field="family")
        # The SPEC's own table is taken as given: recovery-lab (30/15/10/35/10) weights recovery
        # above objective on purpose, which the override rules forbid. The rules guard custom
        # overrides; see docs/scoring.md, "Families and override rules".
        return FAMILIES[family]
    problems = check_weights(weights)
    if problems:
        raise WeightsError("; ".join(problems), field="weights")
    return weights
