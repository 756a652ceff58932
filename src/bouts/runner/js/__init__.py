"""The JavaScript test runner (``node:test``): same trusted-channel design as the Python runner.

See ``docs/javascript.md``.
"""

from bouts.runner.js._run import js_findings, run_js
from bouts.runner.js._workspace import assemble_js_workspace, plant_js_canaries

__all__ = ["assemble_js_workspace", "js_findings", "plant_js_canaries", "run_js"]
