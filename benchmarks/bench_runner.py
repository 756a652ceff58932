"""The isolated runner against its peer, lean bare pytest, on the same tests (issue 17 item 7).

    .venv/bin/python benchmarks/bench_runner.py [--tests 200] [--repeat 5] [--workers 2]

Two suites of ``--tests`` tests each, spread over 10 files: ``trivial`` (``assert True``-class
tests) and ``sqlite`` (each test does about 10 ms of SQLite work on its own database file).
(a) lean bare pytest: ``python -B -m pytest -p no:cacheprovider -q`` with
``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`` (the runner loads no third-party plugin either), one process,
the suite and ``TMPDIR`` on a tmpfs (the sandbox's workspace and ``/tmp`` are tmpfs too), no
bytecode written (the sandbox runs ``-B``); (b) ``run_suites`` through the bubblewrap sandbox
(fresh workspace, supervisor, workers, a forked process per test). The two alternate within each
round, so load on the machine hits both alike. Wall time and CPU core-seconds (of every process,
sandboxed ones included: a cgroup, ``_cgroup.py``), medians. Results: docs/benchmarks.md.
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

from _cgroup import Meter

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


TMPFS = Path("/dev/shm")


def time_bare(root: Path, meter: Meter) -> tuple[float, float]:
    """Lean bare pytest on ``root`` (which lies on the tmpfs): (wall s, CPU s)."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "TMPDIR": str(root / "tmp")}
    cpu, start = meter.cpu_s(), time.perf_counter()
    subprocess.run(
        [sys.executable, "-B", "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/visible"],
        cwd=root, check=True, capture_output=True, env=env,
    )  # fmt: skip
    return time.perf_counter() - start, meter.cpu_s() - cpu


def time_isolated(challenge: Challenge, workers: int, tests: int, meter: Meter) -> tuple[float, float]:
    sandbox = get_sandbox("bubblewrap")
    cpu, start = meter.cpu_s(), time.perf_counter()
    report = run_suites(challenge, challenge.root / "code", sandbox=sandbox, options=RunOptions(workers=workers))
    elapsed, used = time.perf_counter() - start, meter.cpu_s() - cpu
    passed = sum(r.outcome == "passed" for r in report.results)
    if passed != tests or report.tampering:
        raise SystemExit(f"benchmark run is not clean: {passed}/{tests} passed, {report.tampering}")
    return elapsed, used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"{'suite':8} {'lean pytest wall/cpu s':>23} {'runner wall/cpu s':>18} {'ratio wall':>11} {'ratio cpu':>10}"
          f" {'runner cpu ms/test':>19}")  # fmt: skip
    with Meter() as meter:
        for name, template in (("trivial", TRIVIAL), ("sqlite", SQLITE)):
            with tempfile.TemporaryDirectory(prefix="bouts-bench-", dir=TMPFS) as tmp:
                challenge = make_suite(Path(tmp), template, args.tests)
                (challenge.root / "tmp").mkdir()
                time_bare(challenge.root, meter)  # warm the page cache once
                bare: list[tuple[float, float]] = []
                runner: list[tuple[float, float]] = []
                for _ in range(args.repeat):
                    bare.append(time_bare(challenge.root, meter))
                    runner.append(time_isolated(challenge, args.workers, args.tests, meter))
            bw, bc = (statistics.median(x[i] for x in bare) for i in (0, 1))
            rw, rc = (statistics.median(x[i] for x in runner) for i in (0, 1))
            print(f"{name:8} {bw:11.3f} / {bc:9.3f} {rw:8.3f} / {rc:7.3f} {rw / bw:11.2f} {rc / bc:10.2f}"
                  f" {rc / args.tests * 1000:19.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
