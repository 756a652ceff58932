"""Code is judged wherever the submission ships it (issue 14, "the hole"): the same poor module scores
the same whether it sits in ``league/table.py`` or behind a one-line re-export in a folder some tool
skips by default (``build/``, ``dist/``, ``venv/``, ``.venv/``, ``node_modules/``, ``.git/``, ``.tox/``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bouts.judges.base import JudgeInput
from bouts.judges.quality import LintJudge, MetricsJudge, StructureJudge
from bouts.loading import load_challenge

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "league-table"
POOR = (Path(__file__).parent / "data" / "poor_table.py.txt").read_text(encoding="utf-8")
JUDGES = (MetricsJudge, StructureJudge, LintJudge)


def scores(code: Path) -> dict[str, float]:
    challenge = load_challenge(EXAMPLE)
    inp = JudgeInput.read(challenge, code)
    return {j.name: j().judge(inp).score.value for j in JUDGES}  # type: ignore[union-attr]


def submission(root: Path, folder: str | None) -> Path:
    (root / "league").mkdir(parents=True)
    shutil.copy(EXAMPLE / "starter" / "league" / "__init__.py", root / "league")
    if folder is None:
        (root / "league" / "table.py").write_text(POOR, encoding="utf-8")
        return root
    (root / folder).mkdir(parents=True)
    (root / folder / "impl.py").write_text(POOR, encoding="utf-8")
    module = folder.replace("/", ".")
    (root / "league" / "table.py").write_text(f"from {module}.impl import standings  # noqa: F401\n")
    return root


@pytest.fixture(scope="module")
def in_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, float]:
    return scores(submission(tmp_path_factory.mktemp("build"), "build"))


def test_poor_code_is_poor_in_place_and_in_build(tmp_path: Path, in_build: dict[str, float]) -> None:
    in_place = scores(submission(tmp_path, None))
    assert all(v < 85 for v in in_place.values()), in_place
    for name, value in in_build.items():
        assert abs(value - in_place[name]) <= 10, (name, value, in_place[name])


@pytest.mark.parametrize("folder", ["dist", "venv", ".venv", "node_modules", ".git", ".tox", "__pypackages__",
                                    "vendor", "_build"])
def test_no_folder_name_hides_code(tmp_path: Path, folder: str, in_build: dict[str, float]) -> None:
    assert scores(submission(tmp_path, folder)) == in_build
