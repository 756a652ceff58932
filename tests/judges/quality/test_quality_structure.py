"""quality-structure: layering, cycles, naming, annotations, error handling, resources."""

from __future__ import annotations

import pytest
from quality_helpers import Run

from bouts.judges.quality.structure import StructureJudge

STARTER = {"pkg/__init__.py": "", "pkg/core.py": "def base(a: int) -> int:\n    return a\n"}


def rules(run_judge: Run, files: dict[str, str]) -> dict[str, list]:
    verdict = run_judge(StructureJudge(), STARTER, {**STARTER, **files})
    out: dict[str, list] = {}
    for f in verdict.findings:
        out.setdefault(f.rule.removeprefix("structure."), []).append(f)
    return out


def one(run_judge: Run, source: str) -> dict[str, list]:
    return rules(run_judge, {"pkg/new.py": source})


@pytest.mark.parametrize(
    ("source", "rule", "dimension"),
    [
        ("def f(a: int) -> int:\n    r = a\n    return r\n", "naming", "readability"),
        ("def doThing(a: int) -> int:\n    return a\n", "naming", "readability"),
        ("def f(a: int) -> int:\n    try:\n        return a\n    except:\n        raise\n",
         "bare-except", "robustness"),
        ("def f(a: int) -> int:\n    try:\n        return a\n    except ValueError:\n        pass\n    return 0\n",
         "swallowed-exception", "robustness"),
        ("def f(a: int) -> int:\n    try:\n        return a\n    except Exception:\n        return 0\n",
         "broad-except", "robustness"),
        ('def f(price: str) -> int:\n    if price == "19.99":\n        return 1999\n    return 0\n',
         "special-case", "robustness"),
        ('def f(p: str) -> str:\n    h = open(p)\n    return h.read()\n', "open-without-with", "idiomaticity"),
        ("def f(a: int, b: list = []) -> int:\n    return a\n", "mutable-default", "idiomaticity"),
        ("def f(a, b):\n    return a\n", "annotations", "idiomaticity"),
        ("from os import *\n", "star-import", "architecture"),
    ],
)
def test_rule_fires_with_evidence(run_judge: Run, source: str, rule: str, dimension: str) -> None:
    found = one(run_judge, source)
    assert rule in found, found
    hit = found[rule][0]
    assert hit.dimension == dimension and hit.file == "pkg/new.py" and hit.line and hit.points > 0


@pytest.mark.parametrize(
    "source",
    [
        "def f(size: int) -> int:\n    for i in range(size):\n        size += i\n    return size\n",  # conventional i
        "def f(size: int) -> int:\n    try:\n        return size\n    except Exception:\n        log.exception('x')\n"
        "        raise\n",
        "def f(n: int) -> int:\n    if n == 0:\n        return 1\n    return n\n",  # a base case, not a special case
        "def f(path: str) -> str:\n    with open(path) as handle:\n        return handle.read()\n",
        "def f(path: str) -> object:\n    return open(path)\n",  # a factory hands the handle to its caller
        "def f(size: int, extra: tuple = ()) -> int:\n    return size\n",
        "def _private(size, extra):\n    return size\n",  # private functions need no annotations
    ],
)
def test_clean_code_is_not_flagged(run_judge: Run, source: str) -> None:
    found = one(run_judge, source)
    assert not found, found


def test_annotation_coverage_is_a_share_of_public_functions(run_judge: Run) -> None:
    source = "".join(f"def f{i}(a: int) -> int:\n    return a\n\n\n" for i in range(3)) + "def g(a):\n    return a\n"
    (hit,) = one(run_judge, source)["annotations"]
    assert "3/4" in hit.message
    assert hit.points == pytest.approx(40 / 4 * 0.25)


def test_driver_holding_logic(run_judge: Run) -> None:
    logic = "".join(f"    if x == {i}:\n        y += {i}\n" for i in range(7))
    source = f"import argparse\n\n\ndef main(x: int) -> int:\n    y = 0\n{logic}    return y\n"
    assert "driver-logic" in rules(run_judge, {"pkg/cli.py": source})
    thin = "import argparse\n\nfrom pkg.core import base\n\n\ndef main(x: int) -> int:\n    return base(x)\n"
    assert "driver-logic" not in rules(run_judge, {"pkg/cli.py": thin})


def test_core_importing_a_driver_inverts_layering(run_judge: Run) -> None:
    found = rules(run_judge, {"pkg/api.py": "def route() -> None:\n    return None\n",
                              "pkg/model.py": "from pkg.api import route\n\nX = route\n"})
    assert found["layering"][0].file == "pkg/model.py"


def test_import_cycle_closed_by_the_submission(run_judge: Run) -> None:
    found = rules(run_judge, {"pkg/a.py": "from pkg import b\n\nX = b\n", "pkg/b.py": "from pkg import a\n\nY = a\n"})
    (hit,) = found["import-cycle"]
    assert "pkg.a → pkg.b → pkg.a" in hit.message
    lazy = rules(run_judge, {"pkg/a.py": "from pkg import b\n\nX = b\n",
                             "pkg/b.py": "def y() -> object:\n    from pkg import a\n    return a\n"})
    assert "import-cycle" not in lazy


def test_io_mixed_with_logic(run_judge: Run) -> None:
    logic = "".join(f"    if x == {i}:\n        print(x)\n" for i in range(6))
    assert "io-in-logic" in one(run_judge, f"def report(x: int) -> None:\n{logic}")
