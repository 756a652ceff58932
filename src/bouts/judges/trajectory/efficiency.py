"""The efficiency judge (SPEC §1): waste, retry churn, token burn against the budget, tool misuse.

Each wasted event is charged once, under the first heading it falls in: retry churn (an identical
run with nothing changed since), tool misuse (a repeated identical search, a read of a file the agent
just wrote itself, a command whose output is thrown away), else plain waste (a redundant read). Token
burn is judged against ``challenge.spec.budgets.tokens`` (fewer tokens for the same result score
higher, the overrun most), the number of actions against the reference decomposition's steps, the
trajectory's span against ``budgets.time_s``.
Rules: docs/trajectory-judges.md#efficiency.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from bouts.judges.base import JUDGES, Component, Finding, JudgeInput, Verdict
from bouts.models.results import Outcome
from bouts.models.trajectory import Event
from bouts.scoring.explain import NotScored
from bouts.scoring.trajectory_math import ACTIONS_PER_STEP, efficiency_score

from ._common import NO_TRAJECTORY, action_indices, changes, command_key, noop_events, read_of_nothing, same_file
from .process import redundant_reads

NAME = "trajectory-efficiency"
# Every stream sent to /dev/null and nothing reads the status: the result can't be used.
_DISCARDED = re.compile(r">\s*/dev/null\s+2>&1\s*$|&>\s*/dev/null\s*$")


@dataclass
class Waste:
    """The wasted events of one trajectory, by heading (indices into its events)."""

    churn: list[int] = field(default_factory=list)
    misuse: list[tuple[int, str]] = field(default_factory=list)
    waste: list[int] = field(default_factory=list)


def _repeats(events: Sequence[Event], kind: str, key_of: Callable[[Event], str]) -> list[int]:
    """Events of ``kind`` identical (by key) to an earlier one with no change in between."""
    found: list[int] = []
    last: dict[str, int] = {}
    for i, e in enumerate(events):
        if e.kind != kind:
            continue
        key = key_of(e)
        prev = last.get(key)
        if prev is not None and not any(changes(x) for x in events[prev + 1 : i]):
            found.append(i)
        last[key] = i
    return found


def tally(events: Sequence[Event], known: Collection[str] = ()) -> Waste:
    """Sort every event that changed nothing and informed nothing under one heading. ``known``: the
    workspace's files, to tell a read of nothing (charged as waste)."""
    w = Waste(churn=_repeats(events, "run", lambda e: command_key(e.command)))
    charged = set(w.churn)
    for i in _repeats(events, "search", lambda e: " ".join((e.query or "").split())):
        w.misuse.append((i, f"search `{events[i].query}` repeated with nothing changed"))
    for i, e in enumerate(events):
        if e.kind == "run" and i not in charged and _DISCARDED.search(e.command or ""):
            w.misuse.append((i, f"output of `{e.command}` discarded"))
        if e.kind == "read" and e.path:
            prev_touch = next(
                (
                    j
                    for j in range(i - 1, -1, -1)
                    if events[j].path
                    and same_file(events[j].path or "", e.path)
                    and events[j].kind in ("read", "write", "edit", "delete")
                ),
                None,
            )
            if prev_touch is not None and events[prev_touch].kind == "write" and changes(events[prev_touch]):
                w.misuse.append((i, f"read back {e.path} right after writing it"))
    charged |= {i for i, _ in w.misuse}
    nothing = [i for i, e in enumerate(events) if e.kind == "read" and read_of_nothing(events, i, known)]
    w.waste = sorted({i for i in (*redundant_reads(events), *nothing) if i not in charged})
    return w


def _result(inp: JudgeInput) -> float | None:
    """The share of the challenge's visible and hidden tests the submission passed (quarantined tests
    left out); None before or without a run."""
    if inp.run is None:
        return None
    tests = [r for r in inp.run.results if r.suite in ("visible", "hidden") and r.id not in inp.challenge.quarantined]
    if not tests:
        return None
    return sum(1 for r in tests if r.outcome is Outcome.PASSED) / len(tests)


@JUDGES.register(NAME)
class EfficiencyJudge:
    """Efficiency from the trajectory: waste ratio, retry churn, token burn, tool misuse."""

    name = NAME
    component: Component = "efficiency"
    needs_run = True
    """Sits after the tests: tokens saved earn credit in proportion to the result (the tests passed)."""

    def judge(self, inp: JudgeInput) -> Verdict:
        if inp.trajectory is None:
            return Verdict(self.name, "efficiency", NotScored(NO_TRAJECTORY))
        events = inp.trajectory.events
        # a recorded read happened (an absent file's error is its output); an uploaded one is held to the files
        known = () if inp.recorded else (*inp.view.starter.files, *inp.view.code.files)
        w = tally(events, known)
        tokens = sum(inp.trajectory.tokens)
        budget = inp.challenge.spec.budgets.tokens
        steps = len(inp.challenge.spec.decomposition)
        # No-op actions (a failed run and its identical passing re-run, a read of nothing, a rejected edit)
        # are charged where they fall and never dilute the waste ratio or the action count (issue 37).
        noops = noop_events(events, known)
        actions = len([i for i in action_indices(events) if i not in noops]) or len(action_indices(events))
        elapsed = max((e.t for e in events), default=0.0) or None  # all at 0: a log without timing
        time_s = inp.challenge.spec.budgets.time_s
        score = efficiency_score(actions, len(w.waste), len(w.churn), len(w.misuse), tokens, budget, steps,
                                 elapsed_s=elapsed, time_s=time_s, result=_result(inp))  # fmt: skip
        found = [
            Finding("efficiency.churn", f"`{events[i].command}` repeated with nothing changed since", event=i)
            for i in w.churn
        ]
        found += [Finding("efficiency.misuse", what, event=i) for i, what in w.misuse]
        found += [
            Finding("efficiency.waste", f"re-read {events[i].path}: nothing changed, nothing new", event=i)
            for i in w.waste
        ]
        if budget is not None and tokens > budget:
            found.append(Finding("efficiency.tokens", f"{tokens} tokens over the budget of {budget}"))
        if steps and actions > ACTIONS_PER_STEP * steps:
            found.append(Finding("efficiency.actions", f"{actions} actions for a reference decomposition of {steps} "
                                 f"steps ({ACTIONS_PER_STEP * steps} allowed)"))
        if time_s is not None and elapsed is not None and elapsed > time_s:
            spans = f"the trajectory spans {elapsed:g} s, over the {time_s:g} s budget"
            found.append(Finding("efficiency.time", spans))
        return Verdict(self.name, "efficiency", score, findings=tuple(sorted(found, key=lambda f: f.event or 0)))
