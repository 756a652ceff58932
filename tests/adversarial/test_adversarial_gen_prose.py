"""Examples written as prose in docstrings feed the reference oracle's input domain (issue 15).

Task texts often show their examples only in words (``Input: arr = [4,2,3]``, ``For num = "AB" the
output should be 1``) and their visible tests call the task through an alias (``candidate =
pluck``). Before these were read, 20 of HumanEval's 164 tasks had no generated test at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bouts.adversarial import run_generated
from bouts.adversarial._examples import example_calls
from bouts.adversarial._model import Param
from bouts.adversarial._oracle import starter_doctests
from bouts.adversarial._prose import bare_word_calls, prose_calls, typed_calls
from bouts.loading import load_challenge
from bouts.models.results import Outcome
from bouts.sandbox import get_sandbox


def params(*names: str) -> list[Param]:
    return [Param(n) for n in names]


def test_input_lines_with_named_arguments_give_keyword_calls() -> None:
    doc = """Top k numbers.

    Example 1:
        Input: arr = [-3, -4, 5], k = 3
        Output: [-4, -3, 5]
    Example 2:
        Input: arr = [4, -4, 4], k = 2
        Output: [4, 4]
    """
    assert prose_calls(doc, params("arr", "k")) == [
        ((), {"arr": [-3, -4, 5], "k": 3}),
        ((), {"arr": [4, -4, 4], "k": 2}),
    ]


def test_for_x_the_output_should_be_sentences() -> None:
    doc = """Examples:
    For num = "AB" the output should be 1.
    For N = 1000, the sum of digits will be 1 the output should be "1".
    For s = "abcde", c = "ae", the result should be ('bcd',False)
    For n = 5. The next one is bigger.
    """
    assert prose_calls(doc, params("num")) == [((), {"num": "AB"})]
    assert prose_calls(doc, params("N")) == [((), {"N": 1000})]
    assert prose_calls(doc, params("s", "c")) == [((), {"s": "abcde", "c": "ae"})]
    assert prose_calls(doc, params("n")) == [((), {"n": 5})]  # the full stop ends a sentence: 5, not 5.0


def test_assignment_lines_stop_at_answer_words_and_ignore_other_names() -> None:
    doc = """For example:
      arr = [2, 1, 1, 4]
            -> sort arr -> [1, 1, 2, 4]
      return ["Four", "Two", "One", "One"]
      arr = [1, -1 , 55]
      return = ['One']
    Explanation: a = [1, 3, 7] is not an argument, nor is result = 9.
    """
    assert prose_calls(doc, params("arr")) == [((), {"arr": [2, 1, 1, 4]}), ((), {"arr": [1, -1, 55]})]


def test_positional_inputs_and_input_blocks_whose_names_differ_from_the_parameters() -> None:
    doc = """
    Example 1:
        Input: [4,2,3]
        Output: [2, 1]
    Example 2:
        Input: []
        Output: []
    """
    assert prose_calls(doc, params("arr")) == [(([4, 2, 3],), {}), (([],), {})]
    assert prose_calls("Input: 3, 5\nOutput: 8", params("a", "b")) == [((3, 5), {})]
    block = """
        Input:
            grid : [[0,0,1,0],
                    [1,1,1,1]]
            bucket_capacity : 1
        Output: 6
    """
    assert prose_calls(block, params("grid", "capacity")) == [(([[0, 0, 1, 0], [1, 1, 1, 1]], 1), {})]
    assert prose_calls(block, params("grid", "capacity", "extra")) == []  # three parameters, two values: no call


def test_values_are_read_as_literals_never_evaluated(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    doc = f"""Input: x = __import__("pathlib").Path({str(marker)!r}).touch()
    For x = open("/etc/passwd").read() the output should be 1
    For x = [1, 2, foo] the output should be 2
    For x = "unclosed the output should be 3
    """
    assert prose_calls(doc, params("x")) == []
    assert not marker.exists()


def test_unquoted_words_with_results_are_strings_only_when_every_such_call_is_written_so() -> None:
    doc = """For example:
    is_happy(a) => False
    is_happy(abcd) => True
    is_happy(abcd) => True
    see also other(x) -> y
    """
    assert bare_word_calls(doc, "is_happy", params("s")) == [(("a",), {}), (("abcd",), {})]
    assert bare_word_calls("is_happy(abcd) => True", "is_happy", params("s")) == []  # one call: could be a name
    assert bare_word_calls(doc + "is_happy(3) => False", "is_happy", params("s")) == []  # mixed: not words
    assert bare_word_calls("f(s) -> 1, f(s) -> 2, f(t) -> 3", "f", params("s")) == []  # s is the parameter


def test_types_named_in_words_give_small_values_only_when_every_parameter_has_one() -> None:
    assert typed_calls("Given a positive integer n, return the count.", params("n")) == [
        ((), {"n": 1}),
        ((), {"n": 7}),
    ]
    assert typed_calls("s is a string and lst: list of integers", params("s", "lst")) == [
        ((), {"s": "ab", "lst": [1, 2, 3]}),
        ((), {"s": "abc", "lst": [4, 0, 7]}),
    ]
    assert typed_calls("Given a non-negative integer n.", params("n"))[0] == ((), {"n": 0})
    assert typed_calls("@N integer", params("N"))[1] == ((), {"N": 7})
    assert typed_calls("Given a positive integer n and some k.", params("n", "k")) == []  # k's type is unknown


def test_the_starters_docstrings_give_prose_calls_and_misnamed_calls_as_the_functions_own() -> None:
    starter = '''
def numerical_letter_grade(grades):
    """Letter grades.
    Example:
    grade_equation([4.0, 3, 1.7]) ==> ['A+', 'B', 'C-']
    len([1]) is not an example of this function.
    """


def digit_sum(s):
    """digit_sum("ab") => 0, and tri(3) = [1, 3, 2, 8] is another task's."""


def max_fill(grid, capacity):
    import math
    """
    Example 1:
        Input: grid = [[0,0,1,0], [0,1,0,0]], capacity = 1
        Output: 2
    """
'''
    starter += '''

def scale(n: int, factor: float):
    """
    For n = "five", factor = 2 the output should be 10 (a string where the hint says int: dropped)
    For n = 3, factor = 2 the output should be 6
    """
'''
    starter += '''

from decimal import Decimal


def from_cents(cents: int) -> Decimal:
    """Cents as a Decimal (1999 -> Decimal('19.99')): Decimal is imported, its call no example."""


def halve(n: int):
    """twice("4") -> 8: another name, with a value of the wrong type: no example either."""
'''
    calls = example_calls(starter_doctests({"solution.py": starter}))
    assert "from_cents" not in calls and "halve" not in calls
    assert calls["scale"] == [((), {"n": 3, "factor": 2})]
    assert calls["numerical_letter_grade"] == [(([4.0, 3, 1.7],), {})]
    assert calls["digit_sum"] == [(("ab",), {})]  # it shows its own call: tri(3) stays tri's
    assert calls["max_fill"] == [((), {"grid": [[0, 0, 1, 0], [0, 1, 0, 0]], "capacity": 1})]
    assert "len" in calls and "numerical_letter_grade" in calls  # a builtin's call is never taken for the function


def test_a_call_through_a_plain_alias_is_a_call_of_the_aliased_name() -> None:
    visible = {
        "test_a.py": (
            "from solution import *\n"
            "def test_example_1():\n"
            "    candidate = hex_key\n"
            '    assert candidate("AB") == 1\n'
            "def test_example_2():\n"
            "    candidate = hex_key\n"
            '    assert candidate("1077E") == 2\n'
        ),
        "test_b.py": "f = one\nf = two\nf(1)\ng = h\ng += 1\ng(2)\n",
    }
    calls = example_calls(visible)
    assert calls["hex_key"] == [(("AB",), {}), (("1077E",), {})]
    assert calls["candidate"] == calls["hex_key"]
    assert "one" not in calls and "two" not in calls and "h" not in calls  # bound to two things: no alias


# HumanEval/122, /83 and /133 (openai/human-eval, MIT licence, (c) OpenAI): three of the 20 tasks
# whose examples are only prose, with the visible tests HumanEval's importer writes for them.
REFERENCE = '''
def add_elements(arr, k):
    """
    Given a non-empty array of integers arr and an integer k, return
    the sum of the elements with at most two digits from the first k elements of arr.

    Example:

        Input: arr = [111,21,3,4000,5,6,7,8,9], k = 4
        Output: 24 # sum of 21 + 3

    Constraints:
        1. 1 <= len(arr) <= 100
        2. 1 <= k <= len(arr)
    """
    return sum(elem for elem in arr[:k] if len(str(elem)) <= 2)


def starts_one_ends(n):
    """
    Given a positive integer n, return the count of the numbers of n-digit
    positive integers that start or end with 1.
    """
    if n == 1: return 1
    return 18 * (10 ** (n - 2))


def sum_squares(lst):
    """You are given a list of numbers.
    You need to return the sum of squared numbers in the given list,
    round each element in the list to the upper int(Ceiling) first.
    Examples:
    For lst = [1,2,3] the output should be 14
    For lst = [1,4,9] the output should be 98
    For lst = [1,3,5,7] the output should be 84
    For lst = [1.4,4.2,0] the output should be 29
    For lst = [-2.4,1,1] the output should be 6
    """
    import math
    return sum(math.ceil(i) ** 2 for i in lst)
'''
VISIBLE = """from solution import *


def test_example_1():
    candidate = add_elements
    assert True


def test_example_2():
    candidate = starts_one_ends
    assert True


def test_example_3():
    candidate = sum_squares
    assert candidate([1,2,3])==14
"""
WRONG = """
def add_elements(arr, k):
    return sum(elem for elem in arr[:k + 1] if len(str(elem)) <= 2)   # off by one


def starts_one_ends(n):
    return 1 if n == 1 else 18 * (10 ** (n - 1))                       # off by one


def sum_squares(lst):
    return sum(round(i) ** 2 for i in lst)                             # wrong rounding
"""


@pytest.fixture(scope="module")
def prose_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("prose") / "challenge"
    files = {"reference/solution.py": REFERENCE, "starter/solution.py": REFERENCE,
             "tests/visible/test_visible.py": VISIBLE, "tests/hidden/test_hidden.py": VISIBLE}  # fmt: skip
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "challenge.toml").write_text('id = "prose"\ntitle = "Prose"\nlanguage = "python"\n')
    challenge, sandbox = load_challenge(root), get_sandbox("bubblewrap")
    wrong = root.parent / "wrong"
    wrong.mkdir()
    (wrong / "solution.py").write_text(WRONG)
    return {
        name: run_generated(challenge, code, sandbox=sandbox, seed=1234, cache_dir=root.parent / "cache")
        for name, code in (("reference", root / "reference"), ("wrong", wrong))
    }


@pytest.mark.sandbox
def test_a_task_with_only_prose_examples_is_scored_and_the_reference_passes(prose_runs) -> None:  # noqa: ANN001
    run = prose_runs["reference"]
    assert run.verdict.score.value == 100, run.verdict.score
    entries = {t.entry.split(":")[-1] for t, _ in run.outcomes()}
    assert entries == {"add_elements", "starts_one_ends", "sum_squares"}


@pytest.mark.sandbox
def test_off_by_one_and_wrong_rounding_fail_generated_tests_on_valid_input(prose_runs) -> None:  # noqa: ANN001
    failed: dict[str, list[str]] = {}
    for t, r in prose_runs["wrong"].outcomes():
        if r is not None and r.outcome is Outcome.FAILED and t.strategy == "oracle":  # the reference oracle's own
            failed.setdefault(t.entry.split(":")[-1], []).append(r.detail)
            assert t.target.sink == "valid" and t.severity == "high"
    assert set(failed) == {"add_elements", "starts_one_ends", "sum_squares"}, failed
    assert all("returned a different value from the reference's" in d for ds in failed.values() for d in ds)
    assert prose_runs["wrong"].verdict.score.value < 90
