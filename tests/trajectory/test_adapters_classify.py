"""The shared shell-command classifier and test-outcome parser, as tables; and the purity rule."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import bouts.trajectory
from bouts.models.trajectory import TestCounts
from bouts.trajectory import Action, classify_command, parse_test_counts

R, E, W, D, S = "read", "edit", "write", "delete", "search"
RUN, TESTS = Action("run"), Action("run", runs_tests=True)

CASES: list[tuple[str, list[Action]]] = [
    ("cat src/app.py", [Action(R, path="src/app.py")]),
    ("sed -n '10,40p' src/app.py", [Action(R, path="src/app.py")]),
    ("head -n 20 a.py b.py", [Action(R, path="a.py"), Action(R, path="b.py")]),
    ("tail -f log.txt", [Action(R, path="log.txt")]),
    ("nl -ba src/x.py | sed -n '1,20p'", [Action(R, path="src/x.py")]),
    ("less README.md", [Action(R, path="README.md")]),
    ("sed -i 's/a/b/' src/app.py", [Action(E, path="src/app.py")]),
    ("sed -i.bak -e 's/a/b/' f.py", [Action(E, path="f.py")]),
    ("cat > f.py <<'EOF'\nprint(1)\nEOF", [Action(W, path="f.py")]),
    ("cat <<EOF > f.py\nx && y | z\nEOF", [Action(W, path="f.py")]),
    ("echo 'x' >> notes.md", [Action(E, path="notes.md")]),
    ("echo hi > out.txt", [Action(W, path="out.txt")]),
    ("printf 'a' | tee -a log.txt", [Action(E, path="log.txt")]),
    ("echo a | tee new.txt", [Action(W, path="new.txt")]),
    (
        "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: src/b.py\n+z\n"
        "*** Delete File: old.py\n*** End Patch\nPATCH",
        [Action(E, path="src/a.py"), Action(W, path="src/b.py"), Action(D, path="old.py")],
    ),
    ("git apply <<'EOF'\n--- a/x.py\n+++ b/x.py\n@@\n-a\n+b\nEOF", [Action(E, path="x.py")]),
    ("grep -rn 'def main' src", [Action(S, query="def main")]),
    ("rg TODO", [Action(S, query="TODO")]),
    ("find . -name '*.py' | head", [Action(S, query="*.py")]),
    ("ls -la tests/", [Action(S, query="tests/")]),
    ("rm -rf build", [Action(D, path="build")]),
    ("rm a.py b.py", [Action(D, path="a.py"), Action(D, path="b.py")]),
    ("pytest -q", [TESTS]),
    ("python -m pytest tests/test_x.py -x", [TESTS]),
    ("python3 -m unittest discover", [TESTS]),
    ("cd repo && pytest -q", [TESTS]),
    ("cd /testbed && python -m django test auth_tests", [TESTS]),
    ("python tests/runtests.py auth_tests", [TESTS]),
    ("npm test", [TESTS]),
    ("npm run test -- --watch=false", [TESTS]),
    ("yarn test", [TESTS]),
    ("pnpm test NavUser.test.tsx", [TESTS]),
    ("pnpm --filter web test", [TESTS]),
    ("npx jest src", [TESTS]),
    ("npx vitest run", [TESTS]),
    ("cargo test --all", [TESTS]),
    ("go test ./...", [TESTS]),
    ("make test", [TESTS]),
    ("tox -e py311", [TESTS]),
    ("nox -s tests", [TESTS]),
    ("mvn test", [TESTS]),
    ("just check", [TESTS]),
    ("uv run pytest", [TESTS]),
    ("timeout 60 pytest -x", [TESTS]),
    ("FOO=1 pytest", [TESTS]),
    ("bash -lc 'cd app && npm test'", [TESTS]),
    ("npm run build", [RUN]),
    ("make", [RUN]),
    ("python reproduce.py", [RUN]),
    ("git status", [RUN]),
    ("cd src", [RUN]),
    ("sed -i 's/x/y/' a.py && pytest -q", [Action(E, path="a.py"), TESTS]),
    ("cat a.py; python a.py; pytest", [Action(R, path="a.py"), TESTS]),
    ("mv a.py b.py", [Action(D, path="a.py"), Action(W, path="b.py")]),
    ("grep 'a && b' file.txt", [Action(S, query="a && b")]),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c[:40] for c, _ in CASES])
def test_classify_command(command: str, expected: list[Action]) -> None:
    assert classify_command(command) == expected


OUTPUTS: list[tuple[str, TestCounts | None]] = [
    ("==== 1 failed, 17 passed in 2.13s ====", TestCounts(passed=17, failed=1)),
    ("..\n2 passed in 0.01s\n", TestCounts(passed=2, failed=0)),
    ("=== 3 passed, 1 error in 1.0s ===", TestCounts(passed=3, failed=1)),
    ("=== 1 failed, 30 deselected in 0.81s ===", TestCounts(passed=0, failed=1)),
    ("Tests:       1 failed, 5 passed, 6 total", TestCounts(passed=5, failed=1)),
    (" Tests  2 failed | 40 passed (42)", TestCounts(passed=40, failed=2)),
    (
        "test result: ok. 5 passed; 0 failed; 0 ignored\ntest result: FAILED. 1 passed; 2 failed;",
        TestCounts(passed=6, failed=2),
    ),
    ("=== RUN TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL", TestCounts(passed=1, failed=1)),
    ("ok  \texample.com/a\t0.01s\nFAIL\texample.com/b\t0.02s\n", TestCounts(passed=1, failed=1)),
    ("Ran 23 tests in 0.1s\n\nFAILED (failures=1, errors=2)", TestCounts(passed=20, failed=3)),
    ("Ran 4 tests in 0.01s\n\nOK\n", TestCounts(passed=4, failed=0)),
    ("  5 passing (20ms)\n  1 failing", TestCounts(passed=5, failed=1)),
    ("\x1b[32m=== 3 passed in 0.1s ===\x1b[0m", TestCounts(passed=3, failed=0)),
    ("PASSED looks like a pass but is just a word", None),
    ("", None),
]


@pytest.mark.parametrize(("output", "expected"), OUTPUTS, ids=[o[:30] or "empty" for o, _ in OUTPUTS])
def test_parse_test_counts(output: str, expected: TestCounts | None) -> None:
    assert parse_test_counts(output) == expected


def test_last_summary_wins() -> None:
    """A run that echoes an earlier partial summary is judged on its final line."""
    assert parse_test_counts("== 2 failed in 1s ==\n...\n== 5 passed in 2s ==") == TestCounts(passed=5, failed=0)


PURE = {
    "_base.py",
    "_classify.py",
    "_outcomes.py",
    "_events.py",
    "_summary.py",
    "_canonical.py",
    "_swe_agent.py",
    "_claude_code.py",
    "_codex.py",
    "_openhands.py",
    "_aider.py",
    "_inspect.py",
}
FORBIDDEN = {
    "os",
    "sys",
    "subprocess",
    "socket",
    "pathlib",
    "shutil",
    "tempfile",
    "time",
    "random",
    "glob",
    "urllib",
    "http",
    "httpx",
    "requests",
}


@pytest.mark.parametrize("module", sorted(PURE))
def test_parsers_are_pure(module: str) -> None:
    """STYLE §1: parsers take text and return data; only _load.py touches files."""
    tree = ast.parse((Path(bouts.trajectory.__file__).parent / module).read_text())
    for node in ast.walk(tree):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        )
        assert not {n.split(".")[0] for n in names} & FORBIDDEN, (module, names)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id != "open", module
