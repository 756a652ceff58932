"""A Python challenge's requirements.txt is its lock file (issue 39, item 5): `requests>=2` was
accepted and resolved by each worker on its own, so two workers could grade against different
versions (SPEC §5: "exactly the same versions"). Every line must pin one version; the preparation
refuses the file otherwise (naming the line), and `bouts check` lists each such line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bouts.calibration.check import CheckConfig, check_challenge
from bouts.errors import ChallengeError
from bouts.prepare import prepare_dependencies, unpinned_requirements

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory-ledger"


def test_exact_pins_pass_with_extras_markers_hashes_and_continuations() -> None:
    text = (
        "# a lock\n"
        "attrs==23.2.0\n"
        "requests[socks]==2.31.0 ; python_version >= '3.8'  # why\n"
        "six===1.16.0\n"
        "idna==3.6 \\\n"
        "    --hash=sha256:c05567e9c24a6b9faaa835c4821bad0590fbb9d5779e7caa6e1cc4978e7eb24f\n"
        "\n"
    )
    assert unpinned_requirements(text) == []


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("requests>=2", "a range (>=2), not one version"),
        ("requests", "no version given"),
        ("requests==2.*", "a range"),
        ("requests~=2.31", "a range"),
        ("requests==2.31.0,!=2.31.1", "a range"),
        ("pkg @ https://example.invalid/pkg-1.0-py3-none-any.whl", "a direct reference"),
        ("-r other.txt", "pip option '-r'"),
        ("-e .", "pip option '-e'"),
        ("--index-url https://example.invalid/simple", "pip option '--index-url'"),
        ("attrs==23.2.0 --install-option=x", "only --hash may follow"),
        ("not a requirement!!", "not a requirement"),
    ],
)
def test_anything_that_admits_more_than_one_install_is_refused_by_line(line: str, said: str) -> None:
    found = unpinned_requirements("attrs==23.2.0\n" + line + "\n")
    assert [n for n, _ in found] == [2] and said in found[0][1]


def test_the_preparation_refuses_an_unpinned_file_naming_it_and_the_line(tmp_path: Path) -> None:
    root = tmp_path / "ch"
    root.mkdir()
    (root / "requirements.txt").write_text("attrs==23.2.0\nrequests>=2\n")
    with pytest.raises(ChallengeError) as err:
        prepare_dependencies(root, "python", cache_root=tmp_path / "deps")
    assert err.value.file == str(root / "requirements.txt") and err.value.field == "line 2"
    assert "requests>=2" in err.value.describe()
    assert not (tmp_path / "deps" / "python").exists() or not list((tmp_path / "deps" / "python").iterdir())


def test_bouts_check_names_every_unpinned_line(tmp_path: Path) -> None:
    root = tmp_path / "ch"
    shutil.copytree(EXAMPLE, root)
    (root / "requirements.txt").write_text("attrs==23.2.0\nrequests>=2\nflask\n")
    report = check_challenge(root, CheckConfig(runs=0, anchors=False))
    pins = [(p.file, p.field, p.level) for p in report.problems if p.file == "requirements.txt"]
    assert pins == [("requirements.txt", "line 2", "error"), ("requirements.txt", "line 3", "error")]
    assert not report.launch
