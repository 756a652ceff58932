"""The strategy judge (SPEC §1): the agent's steps against the challenge's reference decomposition,
plus architecture heuristics over its code (``architecture.py``).

Decomposition: each action event is matched to the reference steps whose ``kinds`` and ``paths`` it
fits. A step's position is its first event that fits no other step (unambiguous evidence); failing
that, its first event after the previous step's position (an ambiguous event, e.g. a ``core.py`` edit
that could fix a bug or add validation, is read in the reference's favour), or its first event at all. Kendall τ
compares those positions with the reference order. Work clusters matching no step are unnecessary,
except scaffolding the agent created and removed. docs/trajectory-judges.md#strategy.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bouts.judges.base import JUDGES, Component, Finding, JudgeInput, Verdict
from bouts.languages import language_of
from bouts.models.challenge import DecompositionStep
from bouts.models.trajectory import Event
from bouts.scoring.explain import Explained, NotScored
from bouts.scoring.trajectory_math import architecture_score, decomposition_score, kendall_tau, strategy_score

from . import architecture
from ._common import NO_TRAJECTORY, is_test_run, matches, noop_events, same_file
from ._evidence import RECORDED, Evidence

NAME = "trajectory-strategy"
# Kinds that realise each other: a whole-file write is an edit, a search is a way of reading.
KIND_ALIASES = {
    "edit": {"edit", "write"},
    "write": {"write", "edit"},
    "read": {"read"},
    "search": {"search"},
    "delete": {"delete"},
    "run": {"run"},
}
PHASE = {
    "read": "inspect",
    "search": "inspect",
    "edit": "change",
    "write": "change",
    "delete": "change",
    "run": "execute",
}
_PATHISH = re.compile(r"[\w.\-/*]+")


def step_fits(step: DecompositionStep, e: Event) -> bool:
    """Whether event ``e`` can realise ``step``: a fitting kind, on a path the step's globs cover."""
    kinds = set().union(*(KIND_ALIASES.get(k, {k}) for k in step.kinds)) if step.kinds else set(PHASE)
    if e.kind not in kinds:
        return False
    if not step.paths:
        return True
    if e.kind == "search":
        return True  # a query is not a path; a search realises any step that may search
    if e.kind == "run":
        words = _PATHISH.findall(e.command or "")
        test_globs = any("test" in g for g in step.paths)
        return any(matches(w, step.paths) for w in words if "/" in w or "." in w) or (is_test_run(e) and test_globs)
    return matches(e.path, step.paths)


@dataclass(frozen=True)
class Decomposition:
    """Where each reference step was realised (event index, None if never) and the unnecessary clusters."""

    positions: tuple[int | None, ...]
    unnecessary: tuple[tuple[int, int], ...]
    """(first event, last event) of each cluster of work matching no step."""


def _scaffolding(events: Sequence[Event]) -> set[str]:
    """Files the agent created and deleted again: temporary checks serve the step they were made for."""
    written = [e.path for e in events if e.kind == "write" and e.path]
    deleted = [e.path for e in events if e.kind == "delete" and e.path]
    return {w for w in written if any(same_file(w, d) for d in deleted)}


def decompose(
    events: Sequence[Event], steps: Sequence[DecompositionStep], skip: Collection[int] = (),
    mute: Collection[int] = (),
) -> Decomposition:
    """Match the trajectory's actions to the reference steps (see the module docstring). Events in ``skip``
    (no-op actions: a failed run and its identical passing re-run, a read of nothing, a rejected edit) are
    read as absent: they realise no step and cut no cluster. Events in ``mute`` (an uploaded log's reads and
    searches that nothing corroborates) realise no step but still cut clusters."""
    fits = [
        [k for k, s in enumerate(steps) if step_fits(s, e)] if e.kind in PHASE and i not in skip and i not in mute
        else []
        for i, e in enumerate(events)
    ]
    positions: list[int | None] = []
    floor = -1
    for k in range(len(steps)):
        realised = [i for i, f in enumerate(fits) if k in f]
        unique = [i for i in realised if fits[i] == [k]]
        after = [i for i in realised if i > floor]
        pos = unique[0] if unique else after[0] if after else realised[0] if realised else None
        positions.append(pos)
        if pos is not None:
            floor = max(floor, pos)
    scratch = _scaffolding(events)

    def scaffolding(e: Event) -> bool:
        if e.path:
            return any(same_file(e.path, s) for s in scratch)
        return any(s in (e.command or "") for s in scratch)

    unnecessary: list[tuple[int, int]] = []
    cluster: list[int] = []

    def close() -> None:
        # Reading is never "unnecessary" here: what it costs is efficiency's concern.
        inspect = not cluster or PHASE[events[cluster[0]].kind] == "inspect"
        if not inspect and not any(fits[j] or scaffolding(events[j]) for j in cluster):
            unnecessary.append((cluster[0], cluster[-1]))

    for i, e in enumerate(events):
        if e.kind not in PHASE or i in skip:
            continue
        if cluster and PHASE[e.kind] != PHASE[events[cluster[0]].kind]:
            close()
            cluster = []
        cluster.append(i)
    close()
    return Decomposition(tuple(positions), tuple(unnecessary))


def decomposition_half(
    events: Sequence[Event], steps: Sequence[DecompositionStep], known: Collection[str] = (),
    evidence: Evidence = RECORDED,
) -> tuple[Explained | NotScored, list[Finding]]:
    """Steps matched, Kendall τ over their order, unnecessary clusters: the explained half and its evidence.
    ``known``: the workspace's files (``starter/`` and ``code/``), to tell a read of nothing; ``evidence``:
    what an uploaded log's looks are held to (a read or search realises a step where its output shows
    the workspace: issue 37)."""
    if not steps:
        return NotScored("the challenge has no reference decomposition"), []
    mute = [i for i, e in enumerate(events) if e.kind in ("read", "search") and not evidence.shows(e, e.path)]
    d = decompose(events, steps, noop_events(events, known), mute)
    matched = [(k, p) for k, p in enumerate(d.positions) if p is not None]
    tau = kendall_tau([k for k, _ in matched], [p for _, p in matched])
    score = decomposition_score(len(matched), len(steps), tau, len(d.unnecessary))
    found = [Finding("strategy.step-matched", f"step {steps[k].id} realised", event=p) for k, p in matched]
    found += [
        Finding("strategy.step-missing", f"step {steps[k].id} ({steps[k].description}) never realised")
        for k, p in enumerate(d.positions)
        if p is None
    ]
    found += [
        Finding("strategy.unnecessary", f"events {a}-{b} match no reference step", event=a, points=5)
        for a, b in d.unnecessary
    ]
    order = ", ".join(f"{steps[k].id}@{p}" for k, p in matched)
    if isinstance(score, Explained):
        score = Explained(score.value, (f"decomposition: matched {order or 'nothing'}",) + score.math)
    return score, found


def architecture_half(inp: JudgeInput) -> tuple[Explained | NotScored, list[Finding]]:
    """Heuristics over the submitted Python code against the starter and the challenge's declared
    sources (I/O: reads both trees, the sources and the deliverables)."""
    language = language_of(inp.challenge)
    if not language.has("architecture"):
        return NotScored(f"architecture heuristics do not read {language.name} yet"), []
    read_sources = language.part("architecture")
    submission = read_sources(inp.view.judged)
    if not submission:
        return NotScored(f"the submission's code/ holds no {language.name} source"), []
    attribution = architecture.Attribution(
        architecture.read_known_sources(inp.challenge), architecture.read_documents(inp.view.deliverables)
    )
    penalties, seen = architecture.analyse(read_sources(inp.view.judged_starter), submission, attribution)
    found = [Finding(f"strategy.architecture.{o.heuristic}", o.message, file=o.file, line=o.line) for o in seen]
    return architecture_score(penalties), found


@JUDGES.register(NAME)
class StrategyJudge:
    """Strategy: the trajectory against the reference decomposition, plus architecture heuristics."""

    name = NAME
    component: Component = "strategy"

    def judge(self, inp: JudgeInput) -> Verdict:
        if inp.trajectory is None:
            return Verdict(self.name, "strategy", NotScored(NO_TRAJECTORY))
        known = () if inp.recorded else (*inp.view.starter.files, *inp.view.code.files)
        evidence = Evidence.of(inp.view, inp.challenge, recorded=inp.recorded)
        decomposition, found = decomposition_half(
            inp.trajectory.events, inp.challenge.spec.decomposition, known, evidence
        )
        arch, arch_found = architecture_half(inp)
        dims = {
            k: v.value
            for k, v in (("decomposition", decomposition), ("architecture", arch))
            if isinstance(v, Explained)
        }
        return Verdict(
            self.name,
            "strategy",
            strategy_score(decomposition, arch),
            findings=tuple(found + arch_found),
            dimensions=dims,
        )
