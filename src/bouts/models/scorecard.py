"""The scorecard (SPEC §5): what ``bouts score --json`` prints and the service stores."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bouts.models.results import AssertionCount, ObservedExploit, Outcome
from bouts.models.trajectory import Trajectory

SCHEMA = "bouts.scorecard/1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FindingModel(_Model):
    """One piece of evidence behind a component's score."""

    judge: str
    rule: str
    message: str
    file: str | None = None
    line: int | None = None
    event: int | None = None
    """Trajectory event index, for trajectory judges."""
    severity: str | None = None
    points: float = 0.0
    """Points this finding took from the judge's score."""
    dimension: str | None = None


class JudgeScore(_Model):
    """What one judge of a component said."""

    judge: str
    score: float | None
    reason: str | None = None
    """Why the judge did not score, when it did not."""
    dimensions: dict[str, float] = Field(default_factory=dict)


class ComponentScore(_Model):
    score: float | None
    """0-100, or None when the component was not scored (``reason`` says why)."""
    weight: float | None = None
    """Nominal weight in the challenge's profile (None when that profile does not weigh it)."""
    effective_weight: float | None = None
    """Weight actually applied: differs from ``weight`` only in a provisional profile."""
    points: float | None = None
    status: Literal["scored", "not_scored"] = "scored"
    reason: str | None = None
    """Why it was not measured: on a ``not_scored`` component, or on a 0 the submission earned."""
    cause: Literal["submission", "platform"] | None = None
    """Whose doing it is that the component was not measured (SPEC §6): ``submission`` scores 0 with
    ``reason``; ``platform`` is not scored, and the profiles that weigh it rescale and are provisional.
    None: measured, or it does not apply to this challenge."""
    math: list[str] = Field(default_factory=list)
    judges: list[JudgeScore] = Field(default_factory=list)
    """The judges that sat for this component and what each said."""
    findings: list[FindingModel] = Field(default_factory=list)


class ProfileScore(_Model):
    final: int | None
    raw: float | None
    band: str | None
    provisional: bool
    missing: list[str] = Field(default_factory=list)


class FlagModel(_Model):
    code: str
    message: str
    level: int | None = None


class TestOutcomeModel(_Model):
    id: str
    suite: Literal["visible", "hidden", "adversarial"]
    outcome: Outcome
    duration_s: float = 0.0
    detail: str = ""
    """For hidden tests only the exception's type: their source and expected values never appear."""
    severity: str | None = None


class GeneratedTestModel(_Model):
    """One adversarial test generated from the submission's code (``docs/adversarial.md``). Its
    source is shown: it is specific to this submission and holds no hidden expected value."""

    id: str
    target: str
    """The target kind it probes: unvalidated_input, non_atomic_update, missing_null_check,
    weak_type or pattern_mismatch."""
    file: str
    line: int
    function: str
    detail: str
    """What the analysis saw at ``file:line``."""
    entry: str
    """The public callable the test drives, ``module:qualname``."""
    param: str | None = None
    strategy: str
    """fuzz, race, metamorphic or openapi (HTTP requests from the app's schema)."""
    severity: str
    outcome: Outcome | None
    """None: the test never reported (scored as not passed)."""
    result: str = ""
    """Why it failed, as the test reported it."""
    source: str


class GeneratedAdversarialModel(_Model):
    """The generated half of the adversarial component, reproducible from ``seed``."""

    seed: int
    analyser: str | None
    tests: list[GeneratedTestModel] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    """Targets found but not probed, each with its location and the reason."""
    notes: list[str] = Field(default_factory=list)


class CalibrationModel(_Model):
    """The agent's stated confidence against the outcome (SPEC §2 CalibrationAdjustment), with its
    Brier score. Present whenever a judge read for a statement (``stated`` is "none" when it found
    none), on every profile; the adjustment itself is in ``adjustments`` (composite only)."""

    judge: str
    """The judge that read the statement."""
    stated: Literal["confident", "unsure", "none"]
    probability: float | None = None
    """0..1: the stated number, or the one its words map to (docs/trajectory-judges.md#calibration)."""
    statement: str | None = None
    """The agent's sentence."""
    source: str | None = None
    """Where it was said: ``trajectory event 18`` or ``deliverables/ROOT_CAUSE.md:12``."""
    correctness: float | None = None
    """The correctness score (SPEC §1: ``(0.35·static_tests + 0.15·adversarial) / 0.50``) the
    statement is judged by."""
    objective: float | None = None
    """The objective (the engine score of the six components), shown beside it; not what decides
    ``correct`` (scoring rules spec-2026.2 on; earlier scorecards judged by the objective)."""
    threshold: float
    """Correctness score at or above which the submission counts as correct."""
    correct: bool | None = None
    """correctness ≥ threshold; None when correctness was not scored."""
    brier: float | None = None
    """``(probability − correct)²``, 0 best and 1 worst; None without a probability or a correctness score."""


class LLMJudgeUsageModel(_Model):
    """What one LLM judge spent on this scorecard (docs/llm-judges.md#cache-and-cost)."""

    judge: str
    provider: str
    model: str
    status: str
    """``scored``, ``unusable answer`` (malformed or refused after the re-asks) or ``not scored``."""
    reason: str | None = None
    requests: int = 0
    """HTTP requests sent, failed ones included."""
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class LLMUsageModel(_Model):
    """The LLM judges' cost record: sums over every judge that sat, and each judge's line."""

    requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    judges: list[LLMJudgeUsageModel] = Field(default_factory=list)


class Reproducibility(_Model):
    engine_version: str
    challenge_hash: str
    suite_hashes: dict[str, str]
    submission_hash: str
    rule_sets: dict[str, str] = Field(default_factory=dict)
    """Rule set / analyser name → version."""
    judges: list[str] = Field(default_factory=list)
    """Judges that sat: model ids or analyser names."""
    seeds: list[int] = Field(default_factory=list)
    sandbox: str
    assertions: list[AssertionCount] = Field(default_factory=list)
    """Per suite, how many assertions were decided outside the sandbox (the rest in the test
    process); empty when the run decided inline (no reference solution, or JavaScript)."""


class ExcludedModel(_Model):
    """Files of ``code/`` left out of judging (``bouts.models.view.Exclusion``), with the reason."""

    path: str
    reason: str
    kind: Literal["vendored", "bytecode", "not-run"]
    files: int
    examples: list[str] = Field(default_factory=list)
    """Up to ten of the files left out."""


class QuarantinedTestModel(_Model):
    """A test ``bouts check`` quarantined (``quarantine.toml``: it failed on the reference): not counted."""

    id: str
    """As in ``tests`` (a hidden test's parameters hashed)."""
    suite: str
    reason: str
    """The recorded failure for a visible or adversarial test; for a hidden one only that it failed on
    the reference (its failure could quote expected values)."""


RecordedBy = Literal["bouts", "inspect-ai"]


class Recording(_Model):
    """What a driver that ran the agent itself hands to ``score`` (``bouts.agents``): never read from
    a submission, so an uploaded log can never claim it (docs/agents.md#provenance)."""

    recorded_by: RecordedBy
    """``bouts``: the engine's own tool layer (``bouts run``); ``inspect-ai``: Inspect's transcript."""
    harness: str
    """The harness that ran the agent (``mini-swe-agent``, ``inspect-ai/react``, ...)."""
    exploits: list[ObservedExploit] = Field(default_factory=list)
    """Attempts the agent's sandbox stopped while it worked (another host, a write outside the workspace)."""


class TrajectoryProvenance(_Model):
    """Where the scorecard's trajectory came from (docs/agents.md#provenance)."""

    source: Literal["recorded", "uploaded", "none"]
    """``recorded``: the engine ran the agent and recorded what it did; ``uploaded``: a log the
    submitter wrote (fine for local use; a leaderboard can leave it out); ``none``: no trajectory."""
    recorded_by: RecordedBy | None = None
    harness: str | None = None
    """The harness that ran the agent (recorded) or whose log format was read (uploaded)."""
    events: int = 0

    @classmethod
    def of(cls, trajectory: Trajectory | None, recording: Recording | None) -> TrajectoryProvenance:
        events = len(trajectory.events) if trajectory is not None else 0
        if recording is not None:
            return cls(source="recorded", recorded_by=recording.recorded_by, harness=recording.harness, events=events)
        if trajectory is None:
            return cls(source="none")
        return cls(source="uploaded", harness=trajectory.harness, events=events)


class Scorecard(_Model):
    schema_: str = Field(SCHEMA, alias="schema")
    challenge: str
    agent: str
    iteration: int
    profile: str
    family: str
    weights: dict[str, float]
    weights_source: str
    """Family name, or 'custom' when the challenge overrides the composite weights."""
    final: int | None
    raw: float | None
    band: str | None
    provisional: bool
    components: dict[str, ComponentScore]
    adjustments: dict[str, float]
    profiles: dict[str, int | None]
    profile_details: dict[str, ProfileScore]
    flags: list[FlagModel] = Field(default_factory=list)
    math: list[str]
    tests: list[TestOutcomeModel] = Field(default_factory=list)
    removed_files: list[str] = Field(default_factory=list)
    """Files removed from code/ before grading because they could steer the run."""
    quarantined: list[QuarantinedTestModel] = Field(default_factory=list)
    """Tests removed from the counts because they fail on the reference (docs/calibration.md, §1.3)."""
    excluded: list[ExcludedModel] = Field(default_factory=list)
    """Files every judge left out (vendored third-party code, bytecode, what the runner replaces),
    decided once for all judges (docs/judges.md, "What the judges read")."""
    infra_error: str | None = None
    bright_lines: list[str] = Field(default_factory=list)
    """Integrity bright lines that stand on this scorecard: each caps the final at 14 and opens a review
    item; a reviewer who overturns them re-scores without them (``bouts review overturn``)."""
    reproducibility: Reproducibility
    generated_adversarial: GeneratedAdversarialModel | None = None
    """Adversarial tests generated from this submission's code, when the challenge generates them."""
    calibration: CalibrationModel | None = None
    """The stated confidence and its Brier score; None when no judge read for a statement."""
    llm_usage: LLMUsageModel | None = None
    """What the LLM judges spent (requests, tokens, cost, cache hits); None when none sat."""
    elapsed_s: float | None = None
    trajectory: TrajectoryProvenance | None = None
    """Where the trajectory came from; None on scorecards written before provenance was recorded."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)
