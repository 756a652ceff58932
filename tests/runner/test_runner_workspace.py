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


def test_nothing_runs_that_the_submissions_content_hash_leaves_out(tmp_path: Path) -> None:
    """The workspace holds only files the content hash covers (what a cached scorecard is keyed on
    and the judges read): a folder the hash skips (``.pytest_cache``, ``__pycache__``) is removed,
    and so is compiled code Python imports ahead of the source beside it (native extensions)."""
    from bouts.loading._common import walk_tree

    code, tests, dest = tmp_path / "code", tmp_path / "tests", tmp_path / "ws"
    for rel in ["ledger/core.py", "ledger/.pytest_cache/impl.py", ".pytest_cache/v/x", "ledger/__pycache__/a.py",
                "ledger/money.py", "ledger/money.cpython-311-x86_64-linux-gnu.so", "ledger/fast.abi3.so",
                "ledger/win.pyd", "ledger/a.pyc"]:  # fmt: skip
        (code / rel).parent.mkdir(parents=True, exist_ok=True)
        (code / rel).write_text("x")
    tests.mkdir()
    removed = assemble_workspace(code, tests, dest)
    copied = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    hashed = {e.rel for e in walk_tree(code, display="code", error=InputError)}
    assert copied == {"ledger/core.py", "ledger/money.py"} and copied <= hashed
    assert removed == ["ledger/__pycache__/", "ledger/a.pyc", "ledger/fast.abi3.so",
                       "ledger/money.cpython-311-x86_64-linux-gnu.so", "ledger/win.pyd"]  # a test cache: not listed


def test_a_code_folder_that_is_a_link_is_never_followed(tmp_path: Path) -> None:
    (tmp_path / "impl").mkdir()
    (tmp_path / "impl" / "main.py").write_text("x")
    os.symlink("impl", tmp_path / "code")
    with pytest.raises(SubmissionError, match="symbolic link"):
        assemble_workspace(tmp_path / "code", tmp_path / "tests", tmp_path / "ws")
    assert not (tmp_path / "ws").exists()


def test_a_file_named_tests_is_replaced_by_the_pristine_tests(tmp_path: Path) -> None:
    code, tests, dest = tmp_path / "code", tmp_path / "tests", tmp_path / "ws"
    code.mkdir()
    (code / "tests").write_text("not a folder")
    (tests / "visible").mkdir(parents=True)
    (tests / "visible" / "test_real.py").write_text("def test(): pass\n")
    assert assemble_workspace(code, tests, dest) == ["tests"]
    assert (dest / "tests" / "visible" / "test_real.py").is_file()


def test_a_path_the_workspace_cannot_hold_is_a_submission_error_naming_it(tmp_path: Path) -> None:
    code = tmp_path / "c"
    deep = code
    while len(str(deep / ("d" * 100) / "f.py")) < 4_000:
        deep = deep / ("d" * 100)
    deep.mkdir(parents=True)
    (deep / "f.py").write_text("x")  # fits here; not under the longer workspace path
    with pytest.raises(SubmissionError, match="cannot be copied into the workspace") as err:
        assemble_workspace(code, tmp_path / "tests", tmp_path / ("w" * 200) / "workspace")
    assert "d" * 100 in str(err.value)


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
