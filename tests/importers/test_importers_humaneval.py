"""HumanEval importer: the shared example record, doctest examples, check() split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bouts.importers import humaneval_task, parse_humaneval

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "datasets" / "humaneval"

# The shape of a real HumanEval task (HumanEval/0, abridged), to exercise doctest examples.
CLOSE = {
    "task_id": "HumanEval/0",
    "prompt": (
        "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        '    """ Check if any two numbers are closer than threshold.\n'
        "    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n"
        "    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n"
        '    """\n'
    ),
    "canonical_solution": (
        "    for i, a in enumerate(numbers):\n        for j, b in enumerate(numbers):\n"
        "            if i != j and abs(a - b) < threshold:\n                return True\n    return False\n"
    ),
    "test": (
        "METADATA = {'author': 'jt'}\n\n\ndef check(candidate):\n"
        "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True\n"
        "    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) == True\n"
        "    assert candidate([1.1, 2.2, 3.1, 4.1, 5.1], 0.5) == False\n"
    ),
    "entry_point": "has_close_elements",
}


@pytest.mark.skipif(not (DATA / "example_problem.jsonl").is_file(), reason="shared HumanEval example not present")
def test_shared_example_record() -> None:
    (c,) = parse_humaneval((DATA / "example_problem.jsonl").read_text(encoding="utf-8"), source="example")
    assert c.id == "humaneval-test-0"
    assert c.files["reference/solution.py"] == "def return1():\n    return 1\n"
    assert c.files["starter/solution.py"] == "def return1():\n    raise NotImplementedError\n"
    # No doctest in the prompt: the first assert of check() is shown instead.
    assert (
        "candidate = return1\n    assert candidate() == 1" in c.files["tests/visible/test_humaneval_test_0_visible.py"]
    )
    hidden = c.files["tests/hidden/test_humaneval_test_0_hidden.py"]
    assert "def check(candidate):" in hidden and "def test_check_1():" in hidden
    assert "MIT" in c.files["challenge.toml"]


def test_doctest_examples_become_visible_tests_and_asserts_hidden_tests() -> None:
    c = humaneval_task(CLOSE, source="he.jsonl", line=7)
    assert c.id == "humaneval-0" and c.visible_tests == 2 and c.hidden_tests == 3
    visible = c.files["tests/visible/test_humaneval_0_visible.py"]
    assert "assert (has_close_elements([1.0, 2.0, 3.0], 0.5)) == (False)" in visible
    hidden = c.files["tests/hidden/test_humaneval_0_hidden.py"]
    assert "def test_check_3():\n    candidate = has_close_elements\n    assert candidate([1.1" in hidden
    assert c.files["reference/solution.py"].startswith("from typing import List")


def test_check_with_statements_between_asserts_runs_whole() -> None:
    record = dict(CLOSE, test="def check(candidate):\n    x = [1.0, 1.05]\n    assert candidate(x, 0.1)\n")
    c = humaneval_task(record, source="he.jsonl", line=1)
    assert c.hidden_tests == 1
    assert "def test_check():\n    check(has_close_elements)" in c.files["tests/hidden/test_humaneval_0_hidden.py"]


def test_json_lines_with_blank_lines_and_duplicates() -> None:
    line = json.dumps(CLOSE)
    assert len(parse_humaneval(f"{line}\n\n", source="he.jsonl")) == 1
    from bouts.importers import DatasetError

    with pytest.raises(DatasetError) as info:
        parse_humaneval(f"{line}\n{line}\n", source="he.jsonl")
    assert info.value.describe() == "he.jsonl: line 2: field 'task_id': duplicate task id (first on line 1)"


def test_the_tests_call_the_prompts_own_helpers_not_the_submissions() -> None:
    """HumanEval/38: ``check`` encodes with the prompt's ``encode_cyclic``. Read from the submission
    (``from solution import *``), a completion redefining it as the identity passed ``decode_cyclic``
    with ``return s``. The test module now defines the prompt's helper itself, after the star import,
    and never the entry point."""
    six = Path(__file__).with_name("data") / "humaneval-six.jsonl"
    (c,) = [c for c in parse_humaneval(six.read_text(encoding="utf-8"), source="six") if c.id == "humaneval-38"]
    hidden = c.files["tests/hidden/test_humaneval_38_hidden.py"]
    star = hidden.index("from solution import *")
    assert hidden.index("def encode_cyclic(") > star and "def decode_cyclic(" not in hidden
    (plain,) = [c for c in parse_humaneval(six.read_text(encoding="utf-8"), source="six") if c.id == "humaneval-47"]
    assert "def median(" not in plain.files["tests/hidden/test_humaneval_47_hidden.py"]  # no helper: as before
