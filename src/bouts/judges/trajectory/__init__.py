"""Trajectory judges (SPEC §1): process, strategy, recovery, efficiency and integrity signals, read from
the canonical trajectory (``bouts.models.trajectory``). Importing this package registers them in
``bouts.judges.base.JUDGES``. Rules, deductions and formulas: docs/trajectory-judges.md.
"""

from __future__ import annotations

from .calibration import Statement, final_statement, latest_statement
from .efficiency import EfficiencyJudge
from .integrity import TrajectoryIntegrityJudge
from .process import ProcessJudge
from .recovery import RecoveryJudge
from .strategy import StrategyJudge

__all__ = [
    "EfficiencyJudge",
    "ProcessJudge",
    "RecoveryJudge",
    "Statement",
    "StrategyJudge",
    "TrajectoryIntegrityJudge",
    "final_statement",
    "latest_statement",
]
