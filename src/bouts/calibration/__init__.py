"""Calibration toolkit: is a challenge fit to launch (``bouts check``), how do its judges behave
after launch (``bouts stats``), and the review queue for judge disagreements (``bouts review``).

Pure cores (``lint``, ``reference.analyse``, ``anchors.compare``, ``stats``, ``review``) with I/O at
the edges (``check``, ``scorecards``, ``store``). See docs/calibration.md.
"""

from bouts.calibration.check import CheckConfig, check_challenge
from bouts.calibration.report import CheckReport, Problem
from bouts.calibration.review import (
    ReviewError,
    ReviewEvent,
    ReviewItem,
    appeal,
    collect,
    current_score,
    decide,
    escalate,
    open_item,
    overturn,
)  # fmt: skip
from bouts.calibration.scorecards import parse_scorecards, read_scorecards
from bouts.calibration.stats import Attempt, attempt_from_scorecard, summarise
from bouts.calibration.stats_report import StatsReport
from bouts.calibration.store import JsonReviewStore, MemoryReviewStore, ReviewConflictError, ReviewStore

__all__ = [
    "Attempt",
    "CheckConfig",
    "CheckReport",
    "JsonReviewStore",
    "MemoryReviewStore",
    "Problem",
    "ReviewConflictError",
    "ReviewError",
    "ReviewEvent",
    "ReviewItem",
    "ReviewStore",
    "StatsReport",
    "appeal",
    "attempt_from_scorecard",
    "check_challenge",
    "collect",
    "current_score",
    "decide",
    "escalate",
    "open_item",
    "overturn",
    "parse_scorecards",
    "read_scorecards",
    "summarise",
]
