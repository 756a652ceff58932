"""A Python challenge's requirements.txt: prepared once on the host, mounted read-only in the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.models.results import Outcome
from bouts.runner import RunOptions, run_suites
from bouts.sandbox import Sandbox

pytestmark = pytest.mark.sandbox

TESTS = {
    "visible": {
        "test_deps.py": """
            import inflection, sys
            from app import title

            def test_the_pinned_package_is_importable():
                assert inflection.__version__ == "0.5.1"

            def test_the_submission_uses_it():
                assert title("bouts_scoring_engine") == "Bouts Scoring Engine"

            def test_the_environment_is_read_only():
                import pathlib
                target = pathlib.Path(inflection.__file__)
                try:
                    target.write_text("hijacked = True")
                except OSError:
                    return
                raise AssertionError("the prepared environment is writable")
        """
    }
}
CODE = {"app.py": "import inflection\n\ndef title(s):\n    return inflection.titleize(s)\n"}


@pytest.fixture(scope="module")
def deps_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("deps")


def test_requirements_are_installed_once_and_importable_in_the_sandbox(
    make_challenge, bwrap: Sandbox, deps_cache: Path
) -> None:
    challenge, code = make_challenge(TESTS, CODE)
    (challenge.root / "requirements.txt").write_text("inflection==0.5.1\n")
    options = RunOptions(deps_cache=deps_cache)
    report = run_suites(challenge, code, sandbox=bwrap, options=options)
    assert {r.id.split("::")[-1]: r.outcome for r in report.results} == {
        "test_the_pinned_package_is_importable": Outcome.PASSED,
        "test_the_submission_uses_it": Outcome.PASSED,
        "test_the_environment_is_read_only": Outcome.PASSED,
    }
    assert report.tampering == []
    [env] = list((deps_cache / "python").iterdir())
    stamp = (env / "site").stat().st_mtime_ns
    again = run_suites(challenge, code, sandbox=bwrap, options=options)  # cached: not installed again
    assert all(r.outcome is Outcome.PASSED for r in again.results)
    assert (env / "site").stat().st_mtime_ns == stamp and len(list((deps_cache / "python").iterdir())) == 1


def test_without_requirements_nothing_is_mounted(make_challenge, bwrap: Sandbox, deps_cache: Path) -> None:
    challenge, code = make_challenge({"visible": {"test_x.py": "def test_x():\n    import inflection\n"}}, CODE)
    report = run_suites(challenge, code, sandbox=bwrap, options=RunOptions(deps_cache=deps_cache / "none"))
    assert [r.outcome for r in report.results] == [Outcome.FAILED]
    assert "ModuleNotFoundError" in report.results[0].detail
