"""Test outcomes read from a runner's output (pure), for logs that keep no exit code or counts.

Each runner prints a final summary; we read the LAST one in the output (a run may echo earlier
partial summaries, and aider quotes the output twice). Unrecognised output gives None.
"""

from __future__ import annotations

import re

from bouts.models.trajectory import TestCounts

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# pytest: "==== 1 failed, 17 passed, 2 errors in 2.13s ====" (or bare with -q)
_PYTEST = re.compile(
    r"^[=\s]*((?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)(?:, )?)+) in [\d.]+s",
    re.M,
)
_PYTEST_NO_TESTS = re.compile(r"^=+ no tests ran", re.M)
# jest: "Tests:       1 failed, 5 passed, 6 total"; vitest: "Tests  1 failed | 5 passed (6)"
_JEST = re.compile(r"^\s*Tests:?\s+((?:\d+ \w+(?:, | \| )?)+)", re.M)
# cargo: "test result: FAILED. 5 passed; 1 failed; 0 ignored; …" (one per test binary: summed)
_CARGO = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed")
# go: "--- PASS: TestX", "--- FAIL: TestX"; without -v only package lines "ok  pkg" / "FAIL\tpkg"
_GO_CASE = re.compile(r"^\s*--- (PASS|FAIL):", re.M)
_GO_PKG = re.compile(r"^(ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\))", re.M)
# unittest / django: "Ran 23 tests in 0.1s" then "OK" or "FAILED (failures=1, errors=2)"
_UNITTEST = re.compile(r"^Ran (\d+) tests? in [\d.]+s\s*\n\s*\n?(OK|FAILED)(?: \(([^)]*)\))?", re.M)
# mocha: "5 passing", "1 failing"
_MOCHA = re.compile(r"^\s*(\d+) (passing|failing)\b", re.M)
# sympy's bin/test and sympy.test(): "= tests finished: 90 passed, 2 expected to fail, 2 exceptions, in 4.17 seconds ="
# (also "4 failed", "1 skipped", "1 expected to fail but passed"; the leading "=" may be cut by a log's tail)
_SYMPY = re.compile(r"tests finished: ((?:\d+ [a-z ]+?, )*)in [\d.]+ seconds")
_OUTCOME_WORDS = ("passed", "failed", "error", "skipped", "deselected", "xfailed", "xpassed")


def _counts(summary: str) -> dict[str, int]:
    return {word.rstrip("s") if word != "pass" else word: int(n) for n, word in re.findall(r"(\d+) (\w+)", summary)}


def parse_test_counts(output: str | None) -> TestCounts | None:
    """Passed/failed counts from pytest, jest/vitest, cargo, go test, unittest/django or mocha output."""
    if not output:
        return None
    text = _ANSI.sub("", output)
    if found := _SYMPY.findall(text):
        c = {" ".join(w.split()): int(n) for n, w in re.findall(r"(\d+) ([a-z ]+?)(?:, |$)", found[-1])}
        return TestCounts(  # an expected failure, and one that passed anyway, fail nothing (sympy exits 0 on them)
            passed=c.get("passed", 0) + c.get("expected to fail", 0) + c.get("expected to fail but passed", 0),
            failed=c.get("failed", 0) + c.get("exceptions", 0) + c.get("exception", 0),
        )
    if found := _PYTEST.findall(text):
        c = _counts(found[-1])
        return TestCounts(  # an xpass is a pass (a strict xfail that passes is reported as "failed")
            passed=c.get("passed", 0) + c.get("xfailed", 0) + c.get("xpassed", 0),
            failed=c.get("failed", 0) + c.get("error", 0),
        )
    if found := _JEST.findall(text):
        c = _counts(found[-1])
        return TestCounts(passed=c.get("passed", 0), failed=c.get("failed", 0))
    if found := _CARGO.findall(text):
        return TestCounts(passed=sum(int(p) for p, _ in found), failed=sum(int(f) for _, f in found))
    if found := _UNITTEST.findall(text):
        ran, verdict, detail = found[-1]
        # "FAILED (failures=7, expected failures=2)", "OK (skipped=1, expected failures=2)": each key whole
        c = {" ".join(k.split()): int(v) for k, v in re.findall(r"([A-Za-z][A-Za-z ]*)=(\d+)", detail)}
        failed = c.get("failures", 0) + c.get("errors", 0) + c.get("unexpected successes", 0)
        return TestCounts(passed=max(0, int(ran) - failed - c.get("skipped", 0)), failed=failed)
    if found := _GO_CASE.findall(text):
        return TestCounts(passed=found.count("PASS"), failed=found.count("FAIL"))
    if found := _GO_PKG.findall(text):
        return TestCounts(passed=found.count("ok"), failed=found.count("FAIL"))
    if found := _MOCHA.findall(text):
        c = {word: int(n) for n, word in found}
        return TestCounts(passed=c.get("passing", 0), failed=c.get("failing", 0))
    if _PYTEST_NO_TESTS.search(text):
        return TestCounts(passed=0, failed=0)
    return None
