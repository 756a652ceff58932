"""The pure scoring core: formulas, aggregation, adjustments, profiles, leaderboard.

Nothing in this package reads files, the clock, the network, subprocesses or the environment
(tests/scoring/test_purity.py checks it). Every score carries the math that produced it.
"""
