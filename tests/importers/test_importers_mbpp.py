"""MBPP importer on the shared dataset: layout, visible/hidden split, setup code, challenge tests."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from bouts.importers import mbpp_task, parse_mbpp

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "datasets" / "mbpp"
pytestmark = pytest.mark.skipif(not (DATA / "mbpp.jsonl").is_file(), reason="shared MBPP data not present")


@pytest.fixture(scope="module")
def by_id() -> dict[int, tuple[int, dict]]:
    lines = (DATA / "mbpp.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(raw)["task_id"]: (n, json.loads(raw)) for n, raw in enumerate(lines, start=1)}


def _task(by_id, task_id: int):
    line, record = by_id[task_id]
    return mbpp_task(record, source="mbpp.jsonl", line=line)


def _test_names(source: str) -> list[str]:
    return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]


def test_whole_file_imports_974_tasks_with_unique_ids() -> None:
    challenges = parse_mbpp((DATA / "mbpp.jsonl").read_text(encoding="utf-8"), source="mbpp.jsonl")
    assert len(challenges) == 974
    assert len({c.id for c in challenges}) == 974
    assert all(c.visible_tests == 1 and c.hidden_tests >= 2 for c in challenges)


def test_plain_task_layout_split_and_license(by_id) -> None:
    c = _task(by_id, 2)
    assert c.id == "mbpp-2" and c.line == 2
    assert sorted(c.files) == [
        "challenge.toml",
        "reference/solution.py",
        "starter/solution.py",
        "tests/hidden/test_mbpp_2_hidden.py",
        "tests/visible/test_mbpp_2_visible.py",
    ]
    visible = c.files["tests/visible/test_mbpp_2_visible.py"]
    hidden = c.files["tests/hidden/test_mbpp_2_hidden.py"]
    assert _test_names(visible) == ["test_similar_elements_1"]
    assert "(3, 4, 5, 6),(5, 7, 4, 10)" in visible
    assert _test_names(hidden) == ["test_similar_elements_2", "test_similar_elements_3"]
    assert "\r" not in c.files["reference/solution.py"]
    starter = c.files["starter/solution.py"]
    assert "def similar_elements(test_tup1, test_tup2):" in starter and "raise NotImplementedError" in starter
    assert "set(test_tup1)" not in starter  # the answer is not in the starter
    toml = c.files["challenge.toml"]
    assert 'family = "default"' in toml and 'profile = "engine"' in toml
    assert "CC-BY-4.0" in toml and "task 2" in toml


def test_challenge_test_list_becomes_hidden_tests(by_id) -> None:
    line, record = by_id[11]
    assert record["challenge_test_list"]
    c = _task(by_id, 11)
    names = _test_names(c.files["tests/hidden/test_mbpp_11_hidden.py"])
    assert names == ["test_remove_Occ_2", "test_remove_Occ_3"] + [
        f"test_remove_Occ_challenge_{i}" for i in range(1, len(record["challenge_test_list"]) + 1)
    ]
    assert c.hidden_tests == 2 + len(record["challenge_test_list"])


def test_setup_code_runs_in_both_suites_and_keeps_its_classes(by_id) -> None:
    c = _task(by_id, 367)  # builds Node(...) trees the tests pass in
    for rel in ("tests/visible/test_mbpp_367_visible.py", "tests/hidden/test_mbpp_367_hidden.py"):
        text = c.files[rel]
        assert text.index("from solution import *") < text.index("root = Node(1)")
    starter = c.files["starter/solution.py"]
    assert "class Node" in starter  # setup code needs it; only the function is stubbed
    assert "def is_tree_balanced(root):" in starter and "get_height" not in starter


def test_task_functions_named_like_tests_are_not_collected(by_id) -> None:
    text = _task(by_id, 19).files["tests/visible/test_mbpp_19_visible.py"]
    assert "_value.__test__ = False" in text


def test_private_task_functions_are_imported_by_name(by_id) -> None:
    text = _task(by_id, 798).files["tests/hidden/test_mbpp_798_hidden.py"]
    assert "from solution import _sum" in text


def test_sanitized_json_array_is_read_with_test_imports() -> None:
    text = (DATA / "sanitized-mbpp.json").read_text(encoding="utf-8")
    challenges = parse_mbpp(text, source="sanitized-mbpp.json")
    assert len(challenges) == 427
    with_imports = next(
        c for c in challenges if "import math" in c.files[f"tests/hidden/test_{c.id.replace('-', '_')}_hidden.py"]
    )
    assert with_imports.line > 1


def test_limit_stops_early() -> None:
    text = (DATA / "mbpp.jsonl").read_text(encoding="utf-8")
    assert [c.id for c in parse_mbpp(text, source="m", limit=3)] == ["mbpp-1", "mbpp-2", "mbpp-3"]
