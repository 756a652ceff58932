"""The JavaScript/TypeScript test runner (``node:test``, vitest, jest): the Python runner's trusted channel.

See ``docs/javascript.md``.
"""

from bouts.runner.js._externalise import VERSION as JS_EXTERNALISE_VERSION
from bouts.runner.js._externalise import rewrite as rewrite_js_assertions
from bouts.runner.js._run import js_findings, run_js
from bouts.runner.js._workspace import assemble_js_workspace, plant_js_canaries

__all__ = [
    "JS_EXTERNALISE_VERSION",
    "assemble_js_workspace",
    "js_findings",
    "plant_js_canaries",
    "rewrite_js_assertions",
    "run_js",
]
