"""The pure scoring core: formulas, aggregation, adjustments, profiles, leaderboard.

Nothing in this package reads files, the clock, the network, subprocesses or the environment
(import-linter's ``pure-core`` and ``pure-scoring`` contracts in pyproject.toml, and
tests/scoring/test_purity.py for the calls an import contract cannot see). Every score carries the
math that produced it.
"""

# The front door is the formulas' modules, each imported by name (bouts.scoring.weights, ...).
__all__ = [
    "adjustments",
    "budgets",
    "catalogue",
    "components",
    "compute",
    "explain",
    "leaderboard",
    "open_reports",
    "panel",
    "placeholder",
    "profiles",
    "review",
    "trajectory_math",
    "weights",
    "withholding",
]
