"""The test runner: grades a submission's code against a challenge's suites inside a sandbox.

One public entry point, :func:`run_suites`; see ``docs/sandbox.md`` for what it guarantees.
"""

from bouts.runner._run import run_suites
from bouts.runner._workspace import assemble_workspace

__all__ = ["assemble_workspace", "run_suites"]
