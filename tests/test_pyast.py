"""Judges parse submissions in threads beside the tests; CPython 3.11's AST converter is not
thread-safe (python/cpython#106905), so every parse in the engine goes through bouts._pyast."""

from __future__ import annotations

import ast
import shutil
import threading
from pathlib import Path

import pytest

import bouts
from bouts._pyast import literal_value, parse

SRC = Path(bouts.__file__).parent
# Runs inside the sandbox in its own interpreter, single-threaded, and must not import the engine.
SELF_CONTAINED = {SRC / "adversarial" / "_runtime.py"}
# Calls that convert source to AST objects in C, bypassing the lock.
UNLOCKED = {("ast", "parse"), ("ast", "literal_eval"), (None, "cc_visit"), (None, "mi_visit"), (None, "h_visit")}


def _unlocked_calls(path: Path, root: Path = SRC) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            key = (func.value.id, func.attr)
        elif isinstance(func, ast.Name):
            key = (None, func.id)
        else:
            continue
        # ``bouts._pyast.literal_value`` takes parsed nodes; ``ast.literal_eval`` of text parses.
        if key in UNLOCKED:
            hits.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(func)}()")
    return hits


def test_no_engine_module_parses_outside_the_lock() -> None:
    hits = [h for p in sorted(SRC.rglob("*.py")) if p not in SELF_CONTAINED and p.name != "_pyast.py"
            for h in _unlocked_calls(p)]
    assert hits == [], "parse through bouts._pyast instead:\n" + "\n".join(hits)


def test_the_meta_check_sees_a_direct_parse(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("import ast\nfrom radon.complexity import cc_visit\ntree = ast.parse('x = 1')\ncc_visit('')\n"
                   "ok = ast.literal_eval('[1]')\n", encoding="utf-8")
    assert _unlocked_calls(bad, tmp_path) == ["probe.py:3: ast.parse()", "probe.py:4: cc_visit()",
                                              "probe.py:5: ast.literal_eval()"]


def test_parse_matches_ast_parse_in_every_mode() -> None:
    assert ast.dump(parse("x = [1, 2]")) == ast.dump(ast.parse("x = [1, 2]"))
    assert ast.dump(parse("a + b", mode="eval")) == ast.dump(ast.parse("a + b", mode="eval"))
    assert literal_value(parse("{'k': (1, 2.5, None)}", mode="eval").body) == {"k": (1, 2.5, None)}
    with pytest.raises(TypeError):
        literal_value("1")  # text is parsed with parse(), never here


def test_parse_reports_syntax_errors_with_the_file_name() -> None:
    try:
        parse("def f(:\n", filename="code/app.py")
    except SyntaxError as exc:
        assert exc.filename == "code/app.py"
        assert exc.lineno == 1
    else:
        raise AssertionError("a syntax error must raise")


def test_many_threads_parsing_deep_code_all_get_trees() -> None:
    # Deeply nested expressions exercise the converter's recursion counter, the state the bug corrupts.
    source = "x = " + "(" * 150 + "1" + ")" * 150 + "\n" + "\n".join(f"def f{i}(a):\n    return [a, {{a: (a,)}}]"
                                                                       for i in range(40))
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(30):
                assert isinstance(parse(source), ast.Module)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# Pathological sources a hostile submission can ship: each once crashed the whole score.
PATHOLOGICAL = {
    "unary_chain": "x = " + "-" * 100_000 + "1\n",  # the parser raises MemoryError
    "attribute_chain": "y = a" + ".b" * 300_000 + "\n",  # RecursionError during AST construction
    "elif_ladder": "def f(x):\n    if x == 0:\n        return 0\n"
    + "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, 800)),  # parses; visitors overflow
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_nesting_is_a_syntax_error_naming_the_file(name: str) -> None:
    with pytest.raises(SyntaxError, match="not analysed") as caught:
        parse(PATHOLOGICAL[name], filename=f"code/{name}.py")
    assert caught.value.filename == f"code/{name}.py"


def test_real_code_is_far_below_the_depth_bound() -> None:
    for path in sorted(SRC.rglob("*.py")):
        parse(path.read_text(encoding="utf-8"), filename=str(path))  # raises if any engine module were too deep


@pytest.mark.slow_io  # every judge and the test generator over a whole example: 10 s and more
def test_every_judge_and_the_generator_survive_pathological_files(tmp_path: Path) -> None:
    from bouts.adversarial.analysers import analyser_for
    from bouts.judges.base import JudgeInput
    from bouts.judging import builtin_judges
    from bouts.loading import load_challenge

    example = Path(bouts.__file__).parents[2] / "examples" / "inventory-ledger"
    challenge = load_challenge(example)
    code = tmp_path / "code"
    shutil.copytree(example / "reference", code)
    for name, text in PATHOLOGICAL.items():
        (code / "ledger" / f"{name}.py").write_text(text, encoding="utf-8")
    analysis = analyser_for("python").analyse(
        {p.relative_to(code).as_posix(): p.read_text() for p in code.rglob("*.py")}
    )
    assert any("not analysed" in note for note in analysis.notes), analysis.notes
    inp = JudgeInput.read(challenge, code)
    for judge in builtin_judges():
        if getattr(judge, "needs_run", False):
            continue
        verdict = judge.judge(inp)  # must not raise
        assert verdict.judge == judge.name


def _depth(tree: ast.AST) -> int:
    """The tree's depth, recursively (the oracle; fine for trees this shallow)."""
    return 1 + max((_depth(child) for child in ast.iter_child_nodes(tree)), default=0)


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_the_depth_bound_is_exact(extra: int) -> None:
    from bouts._pyast import MAX_DEPTH

    # A chain of additions nests one BinOp per term: the first line's depth, found by the oracle,
    # decides the chain's length for a tree of MAX_DEPTH + extra levels.
    def source(terms: int) -> str:
        return "x = 0\n\n\ny = " + " + ".join(["a"] * terms) + "\n"

    base = _depth(ast.parse(source(2)))
    text = source(2 + MAX_DEPTH + extra - base)
    assert _depth(ast.parse(text)) == MAX_DEPTH + extra
    if extra <= 0:
        assert isinstance(parse(text), ast.Module)
    else:
        with pytest.raises(SyntaxError, match=f"more than {MAX_DEPTH} levels") as caught:
            parse(text, filename="code/deep.py")
        assert caught.value.lineno == 4  # the line of a node beyond the bound
