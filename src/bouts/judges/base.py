"""The judge contract: what a judge is given, what it returns, and the registry it joins.

A judge reads (files, a trajectory, a run report) and may call tools (semgrep, ruff, an LLM), so it
sits at the I/O edge. Its *formula* lives in ``bouts.scoring`` and stays pure. Every point a judge
takes away is a ``Finding`` with its evidence (file and line, or trajectory event index), so the
scorecard can explain it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from bouts.models.challenge import Challenge
from bouts.models.results import RunReport
from bouts.models.submission import DroppedLink
from bouts.models.trajectory import Trajectory
from bouts.models.verdict import Component, Finding, IntegritySignals, Verdict
from bouts.models.view import SubmissionView
from bouts.registry import Registry

__all__ = ["JUDGES", "Component", "Finding", "IntegritySignals", "Judge", "JudgeInput", "Verdict"]


@dataclass(frozen=True)
class JudgeInput:
    """Everything a judge may read: the submission as read once at the pipeline edge (``view``), the
    trajectory and, for judges that sit after the tests, the run report. A judge never opens the
    submission's files itself: what one judge reads, every judge reads (``bouts.models.view``)."""

    challenge: Challenge
    view: SubmissionView
    trajectory: Trajectory | None = None
    run: RunReport | None = None
    """The test run, for judges that need test evidence (None while tests still run)."""
    recorded: bool = False
    """The engine recorded the trajectory itself (``bouts.agents``, ``trajectory.source = "recorded"``): what
    it lists happened. An uploaded log is the agent's account: its reads and investigations earn credit
    only where the workspace corroborates them (docs/trajectory-judges.md)."""
    seed: int = 0
    dropped_links: tuple[DroppedLink, ...] = ()
    """Symbolic links the loader left out of the submission (never followed), for the integrity judge."""
    advisories: Path | None = None
    """The OSV advisory store the security judge checks pinned dependencies against (the ``advisories``
    setting, docs/configuration.md); None: dependencies are not checked, and its verdict says so."""
    cache_dir: Path | None = None
    """The engine's cache directory (``ScoreConfig.cache_dir``), for judges that cache what they derive
    from file contents (the security judge's findings); None: in memory for this process only."""

    @classmethod
    def read(cls, challenge: Challenge, code_dir: Path, deliverables_dir: Path | None = None,
             **rest: Any) -> JudgeInput:
        """Read ``code_dir`` (and ``deliverables_dir``) into a view: for drivers and tests that start
        from directories."""
        from bouts.loading.view import build_view

        return cls(challenge=challenge, view=build_view(challenge, code_dir, deliverables_dir), **rest)


@runtime_checkable
class Judge(Protocol):
    """A judge of one component. ``judge`` must not raise for bad submissions: a submission it cannot
    read is a ``NotScored`` verdict with the reason, or a low score with findings, as the rule says.
    It raises ``InfrastructureError`` only when its own tools are broken.

    A judge class may set ``needs_run = True`` to sit after the tests and receive the RunReport in
    ``JudgeInput.run``; the others run concurrently with the tests (``bouts.judging``)."""

    name: str
    component: Component

    def judge(self, inp: JudgeInput) -> Verdict: ...


JUDGES: Registry[Judge] = Registry("judge")
"""Every judge, built-in or plugin, registers here by name."""
