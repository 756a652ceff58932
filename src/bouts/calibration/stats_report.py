"""What ``bouts stats`` reports (``schema: bouts.stats/1``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

STATS_SCHEMA = "bouts.stats/1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ComponentStats(_Model):
    component: str
    n: int
    weight: float | None
    """Nominal weight in the challenge's profile (None: the profile does not weigh it)."""
    mean: float
    std: float
    """Population standard deviation: near zero, the component tells attempts apart by nothing."""
    min: float
    max: float
    histogram: list[int]
    """Counts in 10-point bins: 0-10, 10-20, ..., 90-100 (100 in the last)."""
    top_bottom_gap: float | None
    """Mean in the top quartile of attempts (by final score) minus mean in the bottom quartile."""
    point_biserial: float | None
    """Correlation of the component with 'in the top quartile' over top + bottom quartile attempts."""
    point_biserial_p: float | None


class Correlation(_Model):
    a: str
    b: str
    r: float | None
    p: float | None
    n: int


class PanelReliability(_Model):
    component: str
    judges: list[str]
    alpha: float | None
    """Krippendorff's α (interval); None when undefined."""
    units: int
    distance_from_median: dict[str, float | None]


class Finding(_Model):
    level: Literal["flag", "suggestion"]
    code: str
    message: str
    components: list[str] = Field(default_factory=list)


class StatsReport(_Model):
    schema_: str = Field(STATS_SCHEMA, alias="schema")
    challenge: str | None
    attempts: int
    needed: int
    """Attempts still needed before findings are drawn (0 when enough)."""
    enough: bool
    components: list[ComponentStats] = Field(default_factory=list)
    correlations: list[Correlation] = Field(default_factory=list)
    panels: list[PanelReliability] = Field(default_factory=list)
    bands: dict[str, int] = Field(default_factory=dict)
    divergent: int = 0
    """Attempts carrying the judge_divergence flag."""
    findings: list[Finding] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)


VALIDITY_SCHEMA = "bouts.stats.validity/1"


class FindingCount(_Model):
    rule: str
    runs: int
    """Runs of this label with at least one finding of this rule."""
    share: float
    """``runs`` over the scored runs of this label."""


class ComponentValidity(_Model):
    """Does one component (or a baseline covariate) separate the runs by their outcome label?"""

    component: str
    kind: Literal["component", "baseline"]
    scored: int
    not_scored: int
    not_scored_rate: float
    not_scored_by_label: dict[str, float]
    """Share of each label's runs the component left not scored (a judge that fails on one label only
    hides its signal in this number)."""
    mean_by_label: dict[str, float | None]
    measure: Literal["auc", "spearman"]
    value: float | None
    """AUC (Mann-Whitney U / n₁n₀, ties half) of the component for the positive label, or Spearman's ρ
    with a numeric rating; None when the scored runs hold one class only (or one value)."""
    ci_low: float | None
    ci_high: float | None
    """Percentile bootstrap 95% interval of ``value`` (resampled within each class, seeded)."""
    top_findings: dict[str, list[FindingCount]] = Field(default_factory=dict)


class ValidityReport(_Model):
    schema_: str = Field(VALIDITY_SCHEMA, alias="schema")
    label: str
    """The label field: ``resolved`` (binary) or a numeric rating."""
    measure: Literal["auc", "spearman"]
    runs: int
    by_label: dict[str, int]
    """Runs per label group (binary: the two labels; numeric: above / at or below the median)."""
    bootstrap: int
    seed: int
    components: list[ComponentValidity] = Field(default_factory=list)
    baselines: list[ComponentValidity] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)
