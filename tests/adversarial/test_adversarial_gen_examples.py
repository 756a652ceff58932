"""The other arguments of a probe come from the visible tests' own literal calls."""

from __future__ import annotations

from bouts.adversarial import PythonAnalyser, generate
from bouts.adversarial._examples import bind, example_calls
from bouts.adversarial._model import Param

CODE = {
    "grid.py": (
        "def min_cost(cost, m, n):\n"
        "    total = 0\n"
        "    for i in range(m + 1):\n"
        "        total += cost[i][n]\n"
        "    return total\n"
    )
}
VISIBLE = {
    "tests/visible/test_grid.py": (
        "from grid import min_cost\n"
        "def test_small():\n"
        "    assert min_cost([[1, 2, 3], [4, 8, 2], [1, 5, 3]], 2, 2) == 8\n"
        "def test_named():\n"
        "    assert min_cost(cost=[[5]], m=0, n=0) == 5\n"
        "def test_not_literal(tmp_path):\n"
        "    assert min_cost(make(tmp_path), 1, 1)\n"
    )
}


def test_literal_calls_are_collected_in_order_and_others_ignored() -> None:
    calls = example_calls(VISIBLE)
    assert calls["min_cost"] == [(([[1, 2, 3], [4, 8, 2], [1, 5, 3]], 2, 2), {}), ((), {"cost": [[5]], "m": 0, "n": 0})]
    assert "make" not in calls  # make(tmp_path), and the call around it: not literal
    assert example_calls({"bad.py": "def (:\n"}) == {}


def test_bind_takes_the_first_call_that_fits_the_parameters() -> None:
    params = (Param("cost"), Param("m"), Param("n"), Param("strict", has_default=True))
    assert bind(params, [((1, 2, 3, 4, 5), {}), ((), {"other": 1}), (([[1]], 0), {"n": 0})]) == {
        "cost": [[1]], "m": 0, "n": 0,
    }
    assert bind(params, [(([[1]],), {})]) == {}  # m and n missing: does not fit


def test_the_probed_parameter_varies_and_the_rest_come_from_the_visible_test() -> None:
    analysis = PythonAnalyser().analyse(CODE)
    suite = generate(analysis, 7, example_calls(VISIBLE))
    probe_m = next(t for t in suite.tests if t.param == "m")
    assert "{'cost': [[1, 2, 3], [4, 8, 2], [1, 5, 3]], 'n': 2, 'm': value}" in probe_m.source
    plain = generate(analysis, 7)
    assert "'cost': 'a'" in next(t for t in plain.tests if t.param == "m").source  # no examples: plain fillers
    assert generate(analysis, 7, example_calls(VISIBLE)).files == suite.files  # deterministic
