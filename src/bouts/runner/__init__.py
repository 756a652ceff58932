"""The test runner: grades a submission's code against a challenge's suites inside a sandbox.

One public entry point, :func:`run_suites`; see ``docs/sandbox.md`` for what it guarantees.
"""

from bouts.runner._grade import Reference, grade, merge_phases, reference_run
from bouts.runner._run import DetailedRun, RunOptions, run_detailed, run_suites
from bouts.runner._workspace import assemble_workspace

__all__ = [
    "DetailedRun",
    "Reference",
    "RunOptions",
    "assemble_workspace",
    "grade",
    "merge_phases",
    "reference_run",
    "run_detailed",
    "run_suites",
]
