"""Verify many imported tasks in one sandbox run (``verify_challenges(..., batch=N)``).

A sandbox run costs about half a second to start (workspace, supervisor, canaries) while a
dataset task's tests take milliseconds, so verifying task by task is mostly start-up. A batch is
one challenge-like directory: each task's reference as ``_bouts_task_<slug>.py`` and each task's
test modules, unchanged but for a few lines before ``from solution import *`` that load that
task's reference under the name ``solution``. The batch only ever says "clean": a task whose
tests did not all pass in it is run again on its own (``verify_one``), which alone decides drops
and exclusions, so one task's crash cannot cost another task a test.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bouts.importers import _layout
from bouts.importers._model import ImportedChallenge
from bouts.importers._reference import run_reference
from bouts.models.results import Outcome
from bouts.runner import RunOptions
from bouts.sandbox import Sandbox

STAR = f"from {_layout.MODULE} import *"
LOADER = """import importlib.util as _bouts_ilu  # verification batch: this task's reference is `solution`
import sys as _bouts_sys

_bouts_spec = _bouts_ilu.spec_from_file_location("solution", _bouts_ilu.find_spec("{module}").origin)
_bouts_module = _bouts_ilu.module_from_spec(_bouts_spec)
_bouts_sys.modules["solution"] = _bouts_module
_bouts_spec.loader.exec_module(_bouts_module)
"""


def run_batch(chunk: Sequence[ImportedChallenge], workdir: Path, *, sandbox: Sandbox, options: RunOptions) -> set[str]:
    """Run every task of ``chunk`` in one sandbox run; the ids of those whose tests all passed."""
    root = workdir / f"batch-{chunk[0].id}"
    files: dict[str, str] = {
        "challenge.toml": _layout.challenge_toml(
            id=f"verify-{chunk[0].id}", title="import verification batch", description="-", profile="engine"
        ).replace(
            f"suite_timeout_s = {_layout.SAMPLE_BUDGET_S}\n", f"suite_timeout_s = {min(7200, 60 * len(chunk))}\n"
        ),
        f"starter/{_layout.MODULE}.py": "\n",
    }
    owner: dict[str, str] = {}
    expected: dict[str, set[tuple[str, str]]] = {}
    for challenge in chunk:
        assert challenge.layout is not None  # verify_challenges batches only built-in imports
        module = f"_bouts_task_{_layout.module_slug(challenge.id)}"
        files[f"reference/{module}.py"] = challenge.files[f"reference/{_layout.MODULE}.py"]
        for path in challenge.layout.paths.values():
            text = challenge.files[path]
            files[path] = text.replace(STAR, LOADER.format(module=module) + STAR, 1)
            owner[path] = challenge.id
        expected[challenge.id] = {(owner_path, f"test_{n}") for owner_path, tests in (
            (challenge.layout.paths["visible"], challenge.layout.visible),
            (challenge.layout.paths["hidden"], challenge.layout.hidden),
        ) for n, _ in tests}  # fmt: skip
    report = run_reference(files, root, sandbox=sandbox, options=options)
    passed: set[tuple[str, str]] = set()
    unclean: set[str] = set()
    for result in report.results:
        path, _, test = result.id.partition("::")
        if result.outcome is Outcome.PASSED and test:
            passed.add((path, test))
        elif result.outcome is not Outcome.PASSED:
            if path not in owner:  # the run itself went wrong: trust none of it
                return set()
            unclean.add(owner[path])
    return {cid for cid, tests in expected.items() if cid not in unclean and tests <= passed}
