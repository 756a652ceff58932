"""No-op actions never pay (SPEC §2, issue 37): inserting into a bundled anchor's log actions that change
neither the code nor any test outcome (a failing command and its identical passing re-run with nothing
changed in between, a read of nothing, a rejected edit before the edit that retries it) never raises
process, strategy, recovery or efficiency, nor the final score through the composite weights. Measured
before the fix: twelve ``cat X`` (exit 1) / ``cat X`` (exit 0) pairs took inventory-ledger's low anchor
27 → 42 (recovery 0 → 80), reads logged before edits took process 70 → 100."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bouts.judges.trajectory  # noqa: F401  (registers the judges)
from bouts.judges.base import JUDGES, JudgeInput
from bouts.judges.trajectory._evidence import Evidence
from bouts.judges.trajectory.strategy import decomposition_half
from bouts.loading import load_challenge
from bouts.models.results import Outcome, RunReport, TestResult
from bouts.models.trajectory import Event, Trajectory
from bouts.scoring.explain import Explained
from bouts.scoring.weights import resolve_weights

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
ANCHORS = sorted(p for p in EXAMPLES.glob("*/anchors/*") if (p / "trajectory.jsonl").is_file())
JUDGED = {"process": "trajectory-process", "recovery": "trajectory-recovery", "efficiency": "trajectory-efficiency"}


@functools.cache
def _anchor(path: Path):
    challenge = load_challenge(path.parents[1])
    events = [Event.model_validate(json.loads(ln)) for ln in (path / "trajectory.jsonl").read_text().splitlines()]
    inp = JudgeInput.read(challenge, path / "code", path / "deliverables")
    return challenge, inp, tuple(events)


def _red_run(challenge) -> RunReport:
    """An engine run of the visible suite with its first test failing (the claims check compares with it)."""
    visible = challenge.test_files.get("visible", [])
    results = [TestResult(id=f"{visible[0]}::test_{k}", suite="visible",
                          outcome=Outcome.FAILED if k == 0 else Outcome.PASSED) for k in range(4)]  # fmt: skip
    return RunReport(results=results, sandbox="none")


def scores(path: Path, events: list[Event], run: RunReport | None) -> dict[str, float]:
    challenge, inp, _ = _anchor(path)
    trajectory = Trajectory(harness="canonical", events=events)
    case = JudgeInput(challenge=challenge, view=inp.view, trajectory=trajectory, run=run)
    out = {}
    for component, name in JUDGED.items():
        score = JUDGES.create(name).judge(case).score
        out[component] = score.value if isinstance(score, Explained) else 0.0
    known = (*inp.view.starter.files, *inp.view.code.files)
    evidence = Evidence.of(inp.view, challenge)
    half, _ = decomposition_half(events, challenge.spec.decomposition, known, evidence)
    out["decomposition"] = half.value if isinstance(half, Explained) else 0.0
    return out


def final_delta(path: Path, before: dict[str, float], after: dict[str, float]) -> float:
    """The change of the final score the trajectory components make (strategy's decomposition is half of it)."""
    spec = _anchor(path)[0].spec
    w = resolve_weights(spec.family, spec.weights.model_dump() if spec.weights else None)
    return (w.process * (after["process"] - before["process"]) + w.recovery * (after["recovery"] - before["recovery"])
            + w.efficiency * (after["efficiency"] - before["efficiency"])
            + w.strategy * (after["decomposition"] - before["decomposition"]) / 2)  # fmt: skip


COMMANDS = [
    "cat ledger/core.py", "cat missing.txt", "ls nowhere", "python -c 'print(1)'", "python scratch.py",
    "pytest tests/visible", "python -m pytest -q tests/visible", "npm test", "make build", "node src/limiter.mjs",
]  # fmt: skip


@st.composite
def noop_pair(draw, events: tuple[Event, ...]) -> tuple[int, list[Event]]:
    """Where to insert, and what: one of the three no-op pairs of SPEC §2."""
    kind = draw(st.sampled_from(["run-pair", "read-of-nothing", "rejected-retry"]))
    edits = [i for i, e in enumerate(events) if e.kind == "edit" and e.path]
    if kind == "rejected-retry" and edits:
        at = draw(st.sampled_from(edits))
        path = events[at].path
        return at, [Event(t=events[at].t, kind="edit", path=path, ok=False, output="No replacement was performed")]
    at = draw(st.integers(0, len(events)))
    t = events[at - 1].t if at else 0.0
    if kind == "read-of-nothing":
        path = draw(st.sampled_from(["nothing.txt", "ledger/core.py", "src/none.mjs", ""]))
        output = "" if path in ("ledger/core.py", "") else draw(st.sampled_from([None, ""]))
        return at, [Event(t=t, kind="read", path=path or None, output=output)]
    command = draw(st.sampled_from(COMMANDS))
    tests = "test" in command
    bad, good = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    fail = Event(t=t, kind="run", command=command, exit_code=1, output=draw(st.sampled_from([None, "error"])),
                 tests={"passed": good, "failed": bad} if tests else None)  # fmt: skip
    ok = Event(
        t=t, kind="run", command=command, exit_code=0, tests={"passed": good + bad, "failed": 0} if tests else None
    )
    return at, [fail, ok]


@pytest.mark.parametrize("path", ANCHORS, ids=lambda p: f"{p.parents[1].name}-{p.name}")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_inserting_noop_pairs_never_raises_a_trajectory_component(path, data):
    challenge, _, events = _anchor(path)
    run = data.draw(st.sampled_from([None, _red_run(challenge)]))
    before = scores(path, list(events), run)
    log = list(events)
    for _ in range(data.draw(st.integers(1, 3))):
        at, pair = data.draw(noop_pair(tuple(log)))
        log[at:at] = pair
    after = scores(path, log, run)
    for component, value in after.items():
        assert value <= before[component] + 1e-9, (component, before, after, log)
    assert final_delta(path, before, after) <= 1e-9


def test_twelve_cat_pairs_leave_the_low_anchor_where_it_was():
    """Issue 37's measurement: 12 ``cat X`` exit 1 / exit 0 pairs took recovery 0 → 80 (final 27 → 42)."""
    path = EXAMPLES / "inventory-ledger" / "anchors" / "low"
    _, _, events = _anchor(path)
    pairs = [
        Event(t=0.0, kind="run", command=f"cat notes{k}.txt", exit_code=code) for k in range(12) for code in (1, 0)
    ]
    before, after = scores(path, list(events), None), scores(path, pairs + list(events), None)
    assert after["recovery"] == before["recovery"] == 0
    assert final_delta(path, before, after) <= 1


@pytest.mark.parametrize("path", ANCHORS, ids=lambda p: f"{p.parents[1].name}-{p.name}")
def test_fake_reads_before_every_edit_lift_the_final_by_at_most_one(path):
    """Reads logged before each edit, with no output to hold them to, took process 70 → 100."""
    _, _, events = _anchor(path)
    log: list[Event] = []
    for e in events:
        if e.kind == "edit" and e.path:
            log.append(Event(t=e.t, kind="read", path=e.path))
        log.append(e)
    before, after = scores(path, list(events), None), scores(path, log, None)
    assert after["process"] <= before["process"]
    assert final_delta(path, before, after) <= 1


def test_a_no_op_pairs_failing_half_reporting_fewer_failures_resolves_nothing():
    """Found by the property above: a failing run and its identical passing rerun, nothing changed between,
    inserted after the low anchor's ROOT_CAUSE.md write. The failing half (1 failed, against the anchor's
    5) "resolved" both earlier failures by failing less after a change: recovery 0 -> 66.67."""
    path = next(p for p in ANCHORS if p.parents[1].name == "inventory-ledger" and p.name == "low")
    _, _, events = _anchor(path)
    log = list(events)
    at = next(i for i, e in enumerate(log) if e.kind == "write") + 1
    t = log[at - 1].t
    log[at:at] = [
        Event(t=t, kind="run", command="pytest tests/visible", exit_code=1, tests={"passed": 1, "failed": 1}),
        Event(t=t, kind="run", command="pytest tests/visible", exit_code=0, tests={"passed": 2, "failed": 0}),
    ]
    before, after = scores(path, list(events), None), scores(path, log, None)
    assert after["recovery"] <= before["recovery"] == 0.0
