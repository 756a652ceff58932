"""The offline code-quality panel: three independent judges of the code a submission changed.

- ``quality-lint``: ruff rule families, density per 100 changed lines (``lint``);
- ``quality-metrics``: complexity, length, nesting, duplication, dead code (``metrics``);
- ``quality-structure``: layering, import cycles, naming, annotations, error handling (``structure``).

Each scores readability, architecture, robustness and idiomaticity (25% each) and registers in
``bouts.judges.base.JUDGES``; the panel rule of SPEC §3 is applied by the caller. Design and rule
tables: docs/quality-judges.md.
"""

from bouts.judges.quality._changes import collect as collect_changes
from bouts.judges.quality._changes import parse as parse_python
from bouts.judges.quality._changes import starter_sources
from bouts.judges.quality.lint import LintJudge
from bouts.judges.quality.metrics import MetricsJudge
from bouts.judges.quality.structure import StructureJudge

PANEL = ("quality-lint", "quality-metrics", "quality-structure")
"""The default offline panel, in the order its scores are listed."""

__all__ = [
    "PANEL",
    "LintJudge",
    "MetricsJudge",
    "StructureJudge",
    "collect_changes",
    "parse_python",
    "starter_sources",
]
