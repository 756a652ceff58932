"""What ``bouts check`` reports: typed, stored or printed as JSON (``schema: bouts.check/1``).

A *problem* at level ``error`` refuses the launch; a ``warning`` is shown and lets it go ahead.
Every problem names the check that found it and, where there is one, the file and the field.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.models.results import AssertionCount

CHECK_SCHEMA = "bouts.check/1"
CheckName = Literal["spec", "lint", "starter", "reference", "anchors"]
Level = Literal["error", "warning"]
Category = Literal["functionality", "edge", "integration"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Problem(_Model):
    """One thing wrong with a challenge."""

    check: CheckName
    level: Level
    message: str
    file: str | None = None
    """Path relative to the challenge root (``tests/hidden/test_x.py``, ``anchors/low/expected.toml``)."""
    field: str | None = None
    """Dotted field, test name or component the problem is about."""

    def describe(self) -> str:
        where = ": ".join(w for w in (self.file, f"'{self.field}'" if self.field else None) if w)
        return f"{where}: {self.message}" if where else self.message


class BehaviourCoverage(_Model):
    """A visible behaviour and the hidden tests that vary it."""

    behaviour: str
    visible: list[str]
    hidden: list[str]
    """Hidden test cases (a parametrised test counts once per literal case)."""


class Mix(_Model):
    """The functionality / edge / integration mix of the visible + hidden tests."""

    counts: dict[Category, int]
    shares: dict[Category, float]
    """Percent of all counted test cases."""
    target: dict[Category, float]
    declared: int
    """Cases whose category was declared with a marker; the rest came from name heuristics."""


class LintReport(_Model):
    coverage: list[BehaviourCoverage] = Field(default_factory=list)
    mix: Mix | None = None
    seeded_hidden: list[str] = Field(default_factory=list)
    """Hidden tests that read the seed (``bouts_seed`` or ``BOUTS_SEED``, directly or via a helper)."""
    hidden_total: int = 0
    hidden_kinds: dict[str, list[str]] = Field(default_factory=dict)
    """SPEC §3's kinds (value_swap, order, scale, invalid) → the hidden tests that show each."""
    assertions: list[AssertionCount] = Field(default_factory=list)
    """Per suite, how many assertion sites are decided outside the sandbox (docs/sandbox.md,
    "Decided outside"); the rest are evaluated in the test process and listed as warnings."""


class QuarantinedTest(_Model):
    id: str
    failures: list[str]
    """One line per failing phase: ``run 2, seed 81723: failed: AssertionError``."""


class TestBudget(_Model):
    __test__ = False
    id: str
    slowest_s: float
    """The slowest duration the reference showed over every run and phase."""
    budget_s: float


class ReferenceReport(_Model):
    runs: int
    seeds: list[int]
    """Published seed first, then the fresh seed of each run."""
    tests: int
    quarantined: list[QuarantinedTest] = Field(default_factory=list)
    slowest: list[TestBudget] = Field(default_factory=list)
    """The slowest tests (up to ten), with their derived budgets."""
    suggested_test_timeout_s: float | None = None
    suggested_suite_timeout_s: float | None = None
    quarantine_file: str | None = None
    """Where the quarantine list was written, when it was (``--write-quarantine``)."""
    generated: str | None = None
    """Whether the adversarial tests generated from the reference ran, per seed, and how many passed."""


class ComponentCheck(_Model):
    component: str
    """A component of the scorecard, or ``final`` for the challenge profile's weighted total."""
    expected: float
    actual: float | None
    judges: list[str] = Field(default_factory=list)
    """The judges that sat for the component."""
    ok: bool

    @property
    def gap(self) -> float | None:
        return None if self.actual is None else round(self.actual - self.expected, 6)


class AnchorReport(_Model):
    level: str
    final: int | None = None
    band: str | None = None
    """The band of ``final`` (Elite, Strong, Competent, Struggling, Weak, Failed)."""
    checks: list[ComponentCheck] = Field(default_factory=list)
    measured: dict[str, float | None] = Field(default_factory=dict)
    """Every component of the scorecard and ``final``, as measured, whether or not an expected score
    names it: what an author reads before writing ``expected.toml``."""
    math: dict[str, list[str]] = Field(default_factory=dict)
    """The math lines of each component that is off its expected score or breaks the anchors' order."""


class StarterReport(_Model):
    """The starter run once (published seed) against the visible suite: what an agent starts from."""

    visible_total: int
    visible_passed: list[str] = Field(default_factory=list)
    """Visible tests the starter already passes (behaviours it does not break)."""
    errored: int = 0
    """Visible tests that errored or crashed (an import failure errors them all)."""


class CheckReport(_Model):
    schema_: str = Field(CHECK_SCHEMA, alias="schema")
    challenge: str
    launch: bool
    """False when at least one problem is an error, or the check skipped what a launch needs
    (``incomplete``): the challenge must not go live on this report."""
    incomplete: list[str] = Field(default_factory=list)
    """What a launch check runs that this one did not (the reference runs, the anchors): such a
    report never clears a launch, whatever it found."""
    problems: list[Problem] = Field(default_factory=list)
    lint: LintReport | None = None
    starter: StarterReport | None = None
    reference: ReferenceReport | None = None
    anchors: list[AnchorReport] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    """Checks not run (``--runs 0``, ``--no-anchors``, or an earlier error made them pointless)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)
