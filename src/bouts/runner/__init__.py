"""The test runner: grades a submission's code against a challenge's suites inside a sandbox.

The entry points are :func:`run_suites` and, for the pipeline, :func:`grade_with` (the graded
session with its fresh-seed phase); everything the sandbox says passes :func:`scrub_report` with the
challenge's :func:`secret_index` before anyone else reads it. See ``docs/sandbox.md`` for what it
guarantees.
"""

from bouts.runner._batch import batches as batch_sessions
from bouts.runner._batch import enable as enable_batch_sessions
from bouts.runner._exploits import merged as merged_exploits
from bouts.runner._externalise import REWRITTEN_SUITES, plan_file
from bouts.runner._grade import Reference, grade, grade_with, merge_phases, reference_run
from bouts.runner._run import DetailedRun, GeneratedPart, RunOptions, run_detailed, run_pytest, run_suites
from bouts.runner._scrub import SecretIndex, scrub_report, scrub_result
from bouts.runner._secrets import secret_index
from bouts.runner._workspace import assemble_workspace

__all__ = [
    "REWRITTEN_SUITES",
    "DetailedRun",
    "GeneratedPart",
    "Reference",
    "RunOptions",
    "SecretIndex",
    "assemble_workspace",
    "batch_sessions",
    "enable_batch_sessions",
    "grade",
    "grade_with",
    "merge_phases",
    "merged_exploits",
    "plan_file",
    "reference_run",
    "run_detailed",
    "run_pytest",
    "run_suites",
    "scrub_report",
    "scrub_result",
    "secret_index",
]
