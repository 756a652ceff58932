"""Workspace assembly, the sandbox registry and the unsafe backend."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from bouts.errors import InputError, SandboxError, SubmissionError
from bouts.models.results import Outcome
from bouts.runner import assemble_workspace, run_suites
from bouts.sandbox import SANDBOXES, Sandbox, get_sandbox


def test_steering_files_and_symlinks_are_removed_and_tests_replaced(tmp_path: Path) -> None:
    code, tests, dest = tmp_path / "code", tmp_path / "tests", tmp_path / "ws"
    (code / "pkg" / "__pycache__").mkdir(parents=True)
    (code / "tests").mkdir()
    (tests / "visible").mkdir(parents=True)
    for rel in ["main.py", "pkg/__init__.py", "pkg/conftest.py", "pkg/__pycache__/x.pyc", "tox.ini",
                "setup.cfg", "usercustomize.py", "hook.pth", "tests/test_forged.py"]:  # fmt: skip
        (code / rel).write_text("x")
    os.symlink("/etc/hostname", code / "link.txt")
    (tests / "visible" / "test_real.py").write_text("def test(): pass\n")
    (tests / "conftest.py").write_text("# the challenge's own: trusted\n")
    removed = assemble_workspace(code, tests, dest)
    assert removed == ["hook.pth", "link.txt", "pkg/__pycache__/", "pkg/conftest.py", "setup.cfg", "tox.ini",
                       "usercustomize.py"]  # fmt: skip
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert files == ["main.py", "pkg/__init__.py", "tests/conftest.py", "tests/visible/test_real.py"]


def test_missing_code_dir_is_a_submission_error(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError):
        assemble_workspace(tmp_path / "nope", tmp_path, tmp_path / "ws")


def test_registry_knows_builtins_and_rejects_unknown_names() -> None:
    assert list(SANDBOXES) == ["bubblewrap", "docker", "none"]
    assert all(SANDBOXES.describe().values())  # every backend documents itself
    with pytest.raises(InputError, match="unknown sandbox"):
        get_sandbox("docker-ish")


def test_none_backend_warns_loudly_and_runs_an_honest_suite(make_challenge, caplog) -> None:  # noqa: ANN001
    challenge, code = make_challenge(
        {"visible": {"test_v.py": "from calc import add\ndef test_a(): assert add(1, 2) == 3\n"}},
        {"calc.py": "def add(a, b):\n    return a + b\n"},
    )
    with caplog.at_level(logging.WARNING):
        box = get_sandbox("none")
        report = run_suites(challenge, code, sandbox=box)
    assert isinstance(box, Sandbox) and not box.isolated
    assert "UNSAFE" in caplog.text
    assert [(r.outcome, report.sandbox) for r in report.results] == [(Outcome.PASSED, "none")]


class _BrokenSandbox:
    """A backend whose sandbox never comes up: must be an infrastructure error, not a score."""

    name = "broken"
    isolated = True

    def run(self, argv, *, on_spawn=None, **_):  # noqa: ANN001, ANN003, ANN202
        if on_spawn:
            on_spawn()
        raise SandboxError("no namespaces here")


def test_a_broken_sandbox_raises_sandbox_error_not_a_verdict(make_challenge) -> None:  # noqa: ANN001
    challenge, code = make_challenge({"visible": {"test_v.py": "def test_a(): pass\n"}})
    with pytest.raises(SandboxError, match="no namespaces"):
        run_suites(challenge, code, sandbox=_BrokenSandbox())


@pytest.mark.sandbox
def test_bwrap_failing_to_set_up_is_a_sandbox_error(tmp_path: Path, bwrap: Sandbox) -> None:
    from bouts.models.challenge import Limits
    from bouts.sandbox import Mount

    with pytest.raises(SandboxError, match="did not start"):
        bwrap.run(["/bin/true"], workspace=tmp_path, env={}, limits=Limits(), timeout_s=5,
                  mounts=[Mount(tmp_path / "does-not-exist", "/x")])  # fmt: skip
