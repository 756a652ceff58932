"""Loading challenge directories: the happy path, and every malformed input named by file and field."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from bouts.errors import ChallengeError
from bouts.loading import load_challenge, severity_for

GOOD_TOML = """\
id = "demo-1"
title = "Demo"
family = "default"

[limits]
memory_mb = 512
"""

ADVERSARIAL = '''\
import pytest
from pytest import mark

pytestmark = [pytest.mark.severity("low"), pytest.mark.slow]


@pytest.mark.severity("high")
def test_x():
    pass


def test_xy():
    pass


@mark.severity("critical")
class TestAttack:
    @pytest.mark.severity("medium")
    def test_m(self):
        pass

    def test_n(self):
        pass
'''


def make_challenge(root: Path, toml: str = GOOD_TOML, *, adversarial: bool = True) -> Path:
    files = {
        "challenge.toml": toml,
        "starter/app.py": "def f():\n    return 1\n",
        "reference/app.py": "def f():\n    return 2\n",
        "tests/visible/test_v.py": "def test_v():\n    pass\n",
        "tests/visible/helpers.py": "X = 1\n",
        "tests/hidden/test_h2.py": "def test_h():\n    pass\n",
        "tests/hidden/sub/check_test.py": "def test_c():\n    pass\n",
        "anchors/low/submission.toml": "",
        "anchors/high/submission.toml": "",
    }
    if adversarial:
        files["tests/adversarial/test_a.py"] = ADVERSARIAL
        files["tests/adversarial/test_b.py"] = "def test_plain():\n    pass\n"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def challenge_dir(tmp_path: Path) -> Path:
    return make_challenge(tmp_path / "demo")


def _error(path: Path) -> ChallengeError:
    with pytest.raises(ChallengeError) as info:
        load_challenge(path)
    return info.value


def test_good_challenge_loads(challenge_dir: Path) -> None:
    ch = load_challenge(challenge_dir)
    assert ch.spec.id == "demo-1"
    assert ch.spec.limits.memory_mb == 512
    assert ch.test_files == {
        "visible": ["tests/visible/test_v.py"],
        "hidden": ["tests/hidden/sub/check_test.py", "tests/hidden/test_h2.py"],
        "adversarial": ["tests/adversarial/test_a.py", "tests/adversarial/test_b.py"],
    }
    assert set(ch.anchors) == {"low", "high"}
    assert ch.anchors["low"] == challenge_dir / "anchors" / "low"
    assert len(ch.content_hash) == 64
    assert set(ch.suite_hashes) == {"visible", "hidden", "adversarial"}


def test_severities_are_read_from_markers(challenge_dir: Path) -> None:
    ch = load_challenge(challenge_dir)
    a = "tests/adversarial/test_a.py"
    assert ch.severities == {
        a: "low",
        f"{a}::test_x": "high",
        f"{a}::TestAttack": "critical",
        f"{a}::TestAttack::test_m": "medium",
    }
    assert severity_for(ch, f"{a}::test_x") == "high"
    assert severity_for(ch, f"{a}::test_x[param-1]") == "high"
    assert severity_for(ch, f"{a}::test_xy") == "low"  # a prefix matches whole nodes only
    assert severity_for(ch, f"{a}::TestAttack::test_m") == "medium"
    assert severity_for(ch, f"{a}::TestAttack::test_n") == "critical"
    assert severity_for(ch, "tests/adversarial/test_b.py::test_plain") == "medium"  # the default


def test_default_severity_comes_from_challenge_toml(tmp_path: Path) -> None:
    toml = GOOD_TOML.replace("[limits]", '[adversarial]\ndefault_severity = "high"\n\n[limits]')
    ch = load_challenge(make_challenge(tmp_path / "c", toml))
    assert severity_for(ch, "tests/adversarial/test_b.py::test_plain") == "high"


def test_adversarial_tests_are_never_executed(tmp_path: Path) -> None:
    root = make_challenge(tmp_path / "c")
    canary = tmp_path / "ran"
    (root / "tests/adversarial/test_boom.py").write_text(
        f"open({str(canary)!r}, 'w').close()\nimport pytest\n\n"
        "@pytest.mark.severity('critical')\ndef test_boom():\n    pass\n"
    )
    ch = load_challenge(root)
    assert not canary.exists()
    assert ch.severities["tests/adversarial/test_boom.py::test_boom"] == "critical"


def test_hashes_change_with_content_and_ignore_caches(challenge_dir: Path) -> None:
    before = load_challenge(challenge_dir)
    (challenge_dir / "tests/hidden/__pycache__").mkdir()
    (challenge_dir / "tests/hidden/__pycache__/x.cpython-311.pyc").write_bytes(b"junk")
    assert load_challenge(challenge_dir).content_hash == before.content_hash
    (challenge_dir / "tests/hidden/test_h2.py").write_text("def test_h():\n    assert 0\n")
    after = load_challenge(challenge_dir)
    assert after.content_hash != before.content_hash
    assert after.suite_hashes["hidden"] != before.suite_hashes["hidden"]
    assert after.suite_hashes["visible"] == before.suite_hashes["visible"]


def test_missing_adversarial_suite_is_fine(tmp_path: Path) -> None:
    ch = load_challenge(make_challenge(tmp_path / "c", adversarial=False))
    assert ch.test_files["adversarial"] == []
    assert ch.severities == {}


def test_toml_syntax_error_names_file_and_line(challenge_dir: Path) -> None:
    (challenge_dir / "challenge.toml").write_text('id = "demo-1"\ntitle = \n')
    err = _error(challenge_dir)
    assert err.file == str(challenge_dir / "challenge.toml")
    assert "line 2" in err.message


def test_wrong_type_in_memory_mb_names_the_field(tmp_path: Path) -> None:
    toml = GOOD_TOML.replace("memory_mb = 512", 'memory_mb = "lots"')
    err = _error(make_challenge(tmp_path / "c", toml))
    assert err.file == str(tmp_path / "c" / "challenge.toml")
    assert err.field == "limits.memory_mb"
    assert "'lots'" in err.message
    assert "challenge.toml: field 'limits.memory_mb'" in str(err)


def test_every_validation_problem_is_listed(tmp_path: Path) -> None:
    toml = GOOD_TOML.replace("memory_mb = 512", "memory_mb = 1\nmax_processes = 0")
    err = _error(make_challenge(tmp_path / "c", toml))
    assert err.field == "limits.memory_mb"
    assert "2 problems" in err.message and "limits.max_processes" in err.message


def test_unknown_key_is_refused(tmp_path: Path) -> None:
    toml = GOOD_TOML.replace("memory_mb = 512", "memory_mb = 512\nmemroy_mb = 4")
    err = _error(make_challenge(tmp_path / "c", toml))
    assert err.field == "limits.memroy_mb"
    assert "unknown key" in err.message


def test_bad_field_in_a_list_names_its_index(tmp_path: Path) -> None:
    toml = GOOD_TOML + '\n[[deliverables]]\npath = "A.md"\n\n[[deliverables]]\nkind = "adr"\n'
    err = _error(make_challenge(tmp_path / "c", toml))
    assert err.field == "deliverables[1].path"


def test_unknown_family_is_refused(tmp_path: Path) -> None:
    err = _error(make_challenge(tmp_path / "c", GOOD_TOML.replace('"default"', '"no-such-family"')))
    assert err.file == str(tmp_path / "c" / "challenge.toml")
    assert err.field == "family"
    assert "no-such-family" in err.message


def test_custom_weights_breaking_the_rules_are_refused(tmp_path: Path) -> None:
    toml = GOOD_TOML + textwrap.dedent("""
        [weights]
        objective = 0.20
        process = 0.30
        strategy = 0.20
        recovery = 0.15
        efficiency = 0.10
    """)
    err = _error(make_challenge(tmp_path / "c", toml))
    assert err.file == str(tmp_path / "c" / "challenge.toml")
    assert err.field == "weights"
    assert "objective weight 0.2 is below the minimum 0.3" in err.message


def test_valid_custom_weights_load(tmp_path: Path) -> None:
    toml = GOOD_TOML + "\n[weights]\nobjective = 0.4\nprocess = 0.2\nstrategy = 0.15\n" \
        "recovery = 0.1\nefficiency = 0.1\n"
    assert load_challenge(make_challenge(tmp_path / "c", toml)).spec.weights is not None


def test_unknown_severity_marker_names_file_and_line(challenge_dir: Path) -> None:
    bad = challenge_dir / "tests/adversarial/test_bad.py"
    bad.write_text('import pytest\n\n\n@pytest.mark.severity("extreme")\ndef test_y():\n    pass\n')
    err = _error(challenge_dir)
    assert err.file == str(bad)
    assert "line 4" in err.message and "extreme" in err.message


def test_two_severity_markers_on_one_test_are_refused(challenge_dir: Path) -> None:
    bad = challenge_dir / "tests/adversarial/test_bad.py"
    bad.write_text('import pytest\n\n@pytest.mark.severity("low")\n@pytest.mark.severity("high")\n'
                   "def test_y():\n    pass\n")
    assert "more than one" in _error(challenge_dir).message


def test_missing_hidden_tests_is_refused(challenge_dir: Path) -> None:
    for p in sorted((challenge_dir / "tests/hidden").rglob("*"), reverse=True):
        p.rmdir() if p.is_dir() else p.unlink()
    (challenge_dir / "tests/hidden").rmdir()
    err = _error(challenge_dir)
    assert err.file == str(challenge_dir / "tests/hidden")
    assert "missing" in err.message


def test_missing_challenge_toml_is_refused(tmp_path: Path) -> None:
    root = make_challenge(tmp_path / "c")
    (root / "challenge.toml").unlink()
    err = _error(root)
    assert err.file == str(root / "challenge.toml")


def test_symlink_pointing_outside_is_refused(challenge_dir: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    os.symlink(secret, challenge_dir / "starter" / "leak.txt")
    err = _error(challenge_dir)
    assert err.file is not None and err.file.endswith("starter/leak.txt")
    assert "outside" in err.message


def test_symlink_inside_the_challenge_is_allowed(challenge_dir: Path) -> None:
    os.symlink("../reference/app.py", challenge_dir / "starter" / "same.py")
    load_challenge(challenge_dir)


def test_public_names_are_frozen() -> None:
    import bouts.loading

    assert sorted(bouts.loading.__all__) == [
        "SKIP_DIRS", "check_matches", "extract_archive", "load_challenge", "load_submission", "read_toml",
        "severity_for", "toml_loads", "validate",
    ]  # fmt: skip


def _js_challenge_with(tmp_path: Path, tests_line: str) -> ChallengeError:
    """The JavaScript example with one more line in its ``[tests]`` table: the error loading it."""
    import shutil

    root = tmp_path / "js"
    shutil.copytree(Path(__file__).parents[2] / "examples" / "rate-limiter-js", root,
                    ignore=shutil.ignore_patterns("node_modules"))  # fmt: skip
    toml = root / "challenge.toml"
    toml.write_text(toml.read_text().replace("[tests]\nseed = 1234", f"[tests]\nseed = 1234\n{tests_line}"))
    return _error(root)


def test_a_javascript_challenge_cannot_declare_a_working_path_yet(tmp_path: Path) -> None:
    assert _js_challenge_with(tmp_path, 'workdir = "/srv/limiter"').field == "tests.workdir"


def test_a_python_challenge_may_run_several_tests_per_process(tmp_path: Path) -> None:
    ch = load_challenge(make_challenge(tmp_path / "c", GOOD_TOML + "\n[tests]\ntests_per_process = 32\n"))
    assert ch.spec.tests.tests_per_process == 32
    assert load_challenge(make_challenge(tmp_path / "d")).spec.tests.tests_per_process == 1


@pytest.mark.parametrize("value", ["0", "2000", '"many"'])
def test_tests_per_process_out_of_range_names_the_field(tmp_path: Path, value: str) -> None:
    err = _error(make_challenge(tmp_path / "c", GOOD_TOML + f"\n[tests]\ntests_per_process = {value}\n"))
    assert err.field == "tests.tests_per_process"


def test_a_javascript_challenge_cannot_run_several_tests_per_process(tmp_path: Path) -> None:
    err = _js_challenge_with(tmp_path, "tests_per_process = 8")
    assert err.field == "tests.tests_per_process"
    assert "Python (pytest) challenges only" in err.message


def test_a_python_challenge_may_preload_library_modules(tmp_path: Path) -> None:
    toml = GOOD_TOML + '\n[tests]\npreload = ["anyio._backends._asyncio", "pydantic.v1", "queue"]\n'
    assert load_challenge(make_challenge(tmp_path / "c", toml)).spec.tests.preload == [
        "anyio._backends._asyncio", "pydantic.v1", "queue"]  # fmt: skip
    assert load_challenge(make_challenge(tmp_path / "d")).spec.tests.preload == []


@pytest.mark.parametrize("value", ['["os; rm"]', '["../x"]', '["a..b"]', '[""]', '"queue"', "[1]"])
def test_a_preload_that_is_no_module_name_names_the_field(tmp_path: Path, value: str) -> None:
    err = _error(make_challenge(tmp_path / "c", GOOD_TOML + f"\n[tests]\npreload = {value}\n"))
    assert err.field is not None and err.field.startswith("tests.preload")


def test_a_javascript_challenge_cannot_preload(tmp_path: Path) -> None:
    err = _js_challenge_with(tmp_path, 'preload = ["queue"]')
    assert err.field == "tests.preload"
    assert "Python (pytest) challenges only" in err.message
