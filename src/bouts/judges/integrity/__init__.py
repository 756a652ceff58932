"""Static integrity detectors: did the submission play fair, read from its code (never run).

``StaticIntegrityJudge`` (registered as ``integrity-static``) reports bright lines (tests or runner
config changed, hard-coded outputs and forged comparisons, test-environment detection followed
through data flow, test-framework hooks, frame or heap introspection, off-limits paths however
they are spelled, symlinks leaving the submission, steering files and tampering the runner
reported) and gray areas (catch-alls that return defaults, silenced checks, suppression
everywhere). Rules and limits: docs/integrity.md.
"""

from bouts.judges.base import JUDGES, Judge
from bouts.judges.integrity._judge import (
    GRAY_CAP_PER_RULE,
    GRAY_CAP_TOTAL,
    RULESET_VERSION,
    StaticIntegrityJudge,
)
from bouts.judges.integrity._paths import same as same_file
from bouts.judges.integrity._tree import Tree

__all__ = ["GRAY_CAP_PER_RULE", "GRAY_CAP_TOTAL", "RULESET_VERSION", "StaticIntegrityJudge", "Tree", "same_file"]


@JUDGES.register("integrity-static")
def make_static_integrity_judge() -> Judge:
    """Static integrity detectors: bright lines and gray areas read from the submission's code."""
    return StaticIntegrityJudge()
