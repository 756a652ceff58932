"""Issue 3 item 10: bare pytest in one process vs the isolated runner, on generated suites.

    .venv/bin/python benchmarks/bench_runner.py [--tests 200] [--repeat 3] [--workers 2]

Two suites of ``--tests`` tests each, spread over 10 files: ``trivial`` (``assert True``-class
tests) and ``sqlite`` (each test does about 10 ms of SQLite work on its own database file).
(a) ``python -m pytest -p no:cacheprovider -q`` on the suite in one process; (b) ``run_suites``
through the bubblewrap sandbox (fresh workspace, canaries, supervisor, a forked process per
test). Prints the median wall time of each, the ratio b/a and the per-test overhead
(b - a) / tests in ms. Results are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bouts.models.challenge import Challenge, ChallengeSpec
from bouts.runner import RunOptions, run_suites
from bouts.sandbox import get_sandbox

FILES = 10

TRIVIAL = """
import pytest

@pytest.mark.parametrize("n", range({per_file}))
def test_trivial(n):
    assert n + 1 > n
"""

SQLITE = """
import os, sqlite3, tempfile
import pytest

@pytest.mark.parametrize("n", range({per_file}))
def test_sqlite(n):
    fd, path = tempfile.mkstemp(suffix=".sqlite3")
    os.close(fd)
    try:
        db = sqlite3.connect(path)
        db.execute("create table t (k integer primary key, v text)")
        db.executemany("insert into t (v) values (?)", ((str(i) * 8,) for i in range(12_000)))
        db.commit()
        assert db.execute("select count(*), sum(length(v)) from t where k % 7 = 0").fetchone()[0] > 0
        db.close()
    finally:
        os.unlink(path)
"""


def make_suite(root: Path, template: str, tests: int) -> Challenge:
    """A challenge directory whose visible suite is ``tests`` generated tests in ``FILES`` files."""
    visible = root / "tests" / "visible"
    visible.mkdir(parents=True)
    names = []
    for i in range(FILES):
        per_file = tests // FILES + (1 if i < tests % FILES else 0)
        (visible / f"test_gen_{i:02d}.py").write_text(template.format(per_file=per_file))
        names.append(f"tests/visible/test_gen_{i:02d}.py")
    (root / "code").mkdir()
    spec = ChallengeSpec(id="bench", title="Benchmark")
    return Challenge(root=root, spec=spec, content_hash="bench", suite_hashes={}, test_files={"visible": names})


def time_bare(root: Path, *, autoload: bool = True) -> float:
    """Bare pytest; ``autoload=False`` also skips the environment's plugins (a leaner baseline)."""
    env = {**os.environ, **({} if autoload else {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/visible"],
        cwd=root, check=True, capture_output=True, env=env,
    )  # fmt: skip
    return time.perf_counter() - start


def time_isolated(challenge: Challenge, workers: int, tests: int) -> float:
    sandbox = get_sandbox("bubblewrap")
    start = time.perf_counter()
    report = run_suites(challenge, challenge.root / "code", sandbox=sandbox, options=RunOptions(workers=workers))
    elapsed = time.perf_counter() - start
    passed = sum(r.outcome == "passed" for r in report.results)
    if passed != tests or report.tampering:
        raise SystemExit(f"benchmark run is not clean: {passed}/{tests} passed, {report.tampering}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    header = f"{'suite':8} {'bare s':>8} {'isolated s':>11} {'ratio':>6} {'overhead ms/test':>17}"
    print(f"{header} {'bare, no autoload s':>20}")
    for name, template in (("trivial", TRIVIAL), ("sqlite", SQLITE)):
        with tempfile.TemporaryDirectory(prefix="bouts-bench-") as tmp:
            challenge = make_suite(Path(tmp), template, args.tests)
            time_bare(challenge.root)  # warm the page cache once
            bare = statistics.median(time_bare(challenge.root) for _ in range(args.repeat))
            lean = statistics.median(time_bare(challenge.root, autoload=False) for _ in range(args.repeat))
            isolated = statistics.median(time_isolated(challenge, args.workers, args.tests) for _ in range(args.repeat))
        overhead = (isolated - bare) / args.tests * 1000
        print(f"{name:8} {bare:8.3f} {isolated:11.3f} {isolated / bare:6.2f} {overhead:17.2f} {lean:20.3f}")


if __name__ == "__main__":
    main()
