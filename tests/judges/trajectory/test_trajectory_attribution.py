"""Strategy judge, architecture half: the idiom heuristic's constructs, and copies of the known
sources a challenge declares (``[attribution] sources``) without an attribution note."""

from __future__ import annotations

import keyword
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bouts.judges.base import JudgeInput
from bouts.judges.trajectory.architecture import Attribution, KnownSource, analyse
from bouts.judges.trajectory.strategy import architecture_half
from bouts.loading import load_challenge
from bouts.scoring.explain import Explained

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "inventory-ledger"

# A well-known recipe (the kind of code a challenge may allow with credit): run-length encoding.
RECIPE = '''\
def run_length_encode(text):
    """Pairs of (character, run length)."""
    runs = []
    current, count = None, 0
    for char in text:
        if char == current:
            count += 1
        else:
            if current is not None:
                runs.append((current, count))
            current, count = char, 1
    if current is not None:
        runs.append((current, count))
    return runs
'''
# The same function renamed, reformatted and recommented: still the recipe.
DISGUISED = """\
def encode_runs(s):
    # group repeated characters
    out = []
    prev, n = None, 0
    for ch in s:
        if ch == prev:
            n += 1
        else:
            if prev is not None:
                out.append((prev, n))
            prev, n = ch, 1
    if prev is not None:
        out.append((prev, n))
    return out


encode_runs("aab")
"""
OWN = '''\
from itertools import groupby


def encode_runs(text):
    """Pairs of (character, run length), by groupby."""
    pairs = []
    for char, group in groupby(text):
        pairs.append((char, sum(1 for _ in group)))
    return pairs


encode_runs("aab")
'''


def _known(**kwargs: object) -> KnownSource:
    return KnownSource("known/rle.py", {"known/rle.py": RECIPE}, **kwargs)  # type: ignore[arg-type]


def _copies(code: str, documents: tuple[str, ...] = (), **kwargs: object) -> tuple[float, list[str]]:
    penalties, seen = analyse({"m.py": ""}, {"m.py": code}, Attribution((_known(**kwargs),), documents))
    penalty = next(p for p in penalties if p.heuristic == "unattributed copies of known sources")
    return penalty.points, [f"{o.file}:{o.line}" for o in seen if o.heuristic == "known"]


def test_a_renamed_reformatted_copy_of_a_declared_source_without_attribution_costs_10() -> None:
    points, where = _copies(DISGUISED)
    assert (points, where) == (10, ["m.py:1"])
    _, seen = analyse({"m.py": ""}, {"m.py": DISGUISED}, Attribution((_known(),)))
    message = next(o.message for o in seen if o.heuristic == "known")
    assert "known/rle.py:run_length_encode" in message and "rle.py" in message


@pytest.mark.parametrize(
    ("code", "documents", "names"),
    [
        ("# adapted from known/rle.py\n" + DISGUISED, (), ()),  # a comment naming the path
        ('"""Run-length encoding after rle.py."""\n' + DISGUISED, (), ()),  # a docstring naming the file
        (DISGUISED, ("encode_runs follows the recipe in rle.py.",), ()),  # a deliverable
        ("# RLE recipe by A. Author\n" + DISGUISED, (), ("RLE recipe by A. Author",)),  # a declared name
    ],
)
def test_an_attributed_copy_costs_nothing(code: str, documents: tuple[str, ...], names: tuple[str, ...]) -> None:
    assert _copies(code, documents, names=names) == (0, [])


RECIPE_NAMES = ("run_length_encode", "text", "runs", "current", "count", "char")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.from_regex(r"[a-z][a-z0-9_]{2,10}", fullmatch=True), min_size=6, max_size=6, unique=True),
    st.sampled_from(["    ", "  "]),
)
def test_any_renaming_or_reindenting_of_the_source_is_still_its_copy(names: list[str], indent: str) -> None:
    assume(not any(keyword.iskeyword(n) for n in names) and not set(names) & set(RECIPE_NAMES))
    code = RECIPE
    for old, new in zip(RECIPE_NAMES, names, strict=True):
        code = re.sub(rf"\b{old}\b", new, code)
    code = code.replace("    ", indent)
    assert _copies(code)[0] == 10


def test_own_code_for_the_same_task_is_no_copy() -> None:
    assert _copies(OWN) == (0, [])


def test_the_threshold_decides() -> None:
    assert _copies(DISGUISED, threshold=1.0) == (0, [])  # not token for token: the docstring is gone
    assert _copies(DISGUISED, threshold=0.9)[0] == 10


def test_a_source_the_starter_already_holds_is_not_the_submissions_copy() -> None:
    penalties, _ = analyse({"m.py": RECIPE}, {"m.py": RECIPE + "\nrun_length_encode('a')\n"},
                           Attribution((_known(),)))  # fmt: skip
    assert next(p for p in penalties if p.heuristic == "unattributed copies of known sources").points == 0


def test_without_declared_sources_the_heuristic_is_not_listed() -> None:
    penalties, _ = analyse({"m.py": ""}, {"m.py": DISGUISED})
    assert "unattributed copies of known sources" not in {p.heuristic for p in penalties}


def test_copies_cost_at_most_30() -> None:
    code = "".join(DISGUISED.replace("encode_runs", f"encode_runs_{i}") + "\n\n" for i in range(5))
    points, where = _copies(code)
    assert points == 30 and len(where) == 5


def test_the_strategy_judge_reads_the_declared_sources_and_the_deliverables(tmp_path: Path) -> None:
    root = tmp_path / "challenge"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("anchors"))
    (root / "known").mkdir()
    (root / "known" / "rle.py").write_text(RECIPE)
    toml = root / "challenge.toml"
    toml.write_text(toml.read_text() + '\n[attribution]\nsources = ["known/"]\n')
    challenge = load_challenge(root)
    assert challenge.spec.attribution.sources[0].path == "known/"
    code, deliverables = tmp_path / "code", tmp_path / "deliverables"
    shutil.copytree(challenge.starter, code)
    (code / "ledger" / "runs.py").write_text(DISGUISED)
    arch, found = architecture_half(JudgeInput.read(challenge, code))
    assert isinstance(arch, Explained) and arch.value == 90
    assert [(f.rule, f.file, f.line) for f in found] == [("strategy.architecture.known", "ledger/runs.py", 1)]
    deliverables.mkdir()
    (deliverables / "ROOT_CAUSE.md").write_text("encode_runs is the run-length recipe of rle.py.\n")
    arch, found = architecture_half(JudgeInput.read(challenge, code, deliverables))
    assert isinstance(arch, Explained) and arch.value == 100 and found == []


IDIOMS = [
    ("def f(xs):\n    i = 0\n    while i < len(xs):\n        print(xs[i])\n        i += 1\n", "while i < len(xs)"),
    ("def f(x):\n    try:\n        return int(x)\n    except:\n        return 0\n", "bare except"),
    ("def f(x, seen=[]):\n    seen.append(x)\n    return seen\n", "mutable default argument"),
    ("def f(x):\n    return isinstance(x, int) or isinstance(x, float)\n", "isinstance(x, A) or isinstance(x, B)"),
]


@pytest.mark.parametrize(("code", "what"), IDIOMS)
def test_each_unidiomatic_construct_costs_2_with_its_line(code: str, what: str) -> None:
    penalties, seen = analyse({"m.py": ""}, {"m.py": code + "\nf(1)\n"})
    assert next(p for p in penalties if p.heuristic == "unidiomatic constructs").points == 2
    assert [o.message.startswith(what) for o in seen if o.heuristic == "idiom"] == [True]


@pytest.mark.parametrize(
    "code",
    [
        "def f(xs):\n    for i, x in enumerate(xs):\n        print(i, x)\n",
        "def f(x):\n    try:\n        return int(x)\n    except ValueError:\n        return 0\n",
        "def f(x, seen=None):\n    return [x] if seen is None else [*seen, x]\n",
        "def f(x):\n    return isinstance(x, (int, float))\n",
        "def f(x, y):\n    return isinstance(x, int) or isinstance(y, int)\n",  # two subjects: no chain
        "def f(xs, n):\n    i = 0\n    while i < len(xs) and n:\n        n -= 1\n    return i\n",
    ],
)
def test_the_idiomatic_forms_cost_nothing(code: str) -> None:
    penalties, _ = analyse({"m.py": ""}, {"m.py": code + "\nf(1, 2)\n"})
    assert next(p for p in penalties if p.heuristic == "unidiomatic constructs").points == 0
