"""The isolated runner against its peer, lean bare pytest, on the same tests (issue 17 item 7).

    .venv/bin/python benchmarks/bench_runner.py [--tests 200] [--repeat 5] [--workers 2]
        [--tests-per-process 1,64] [--driver before=/tmp/old/src/bouts/runner/sandboxed]

Two suites of ``--tests`` tests each, spread over 10 files: ``trivial`` (``assert True``-class
tests) and ``sqlite`` (each test does about 10 ms of SQLite work on its own database file).
(a) lean bare pytest: ``python -B -m pytest -p no:cacheprovider -q`` with
``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`` (the runner loads no third-party plugin either), one process,
the suite and ``TMPDIR`` on a tmpfs (the sandbox's workspace and ``/tmp`` are tmpfs too), no
bytecode written (the sandbox runs ``-B``); (b) ``run_suites`` through the bubblewrap sandbox
(fresh workspace, supervisor, workers, forked test processes), once per ``--tests-per-process``
value (``RunOptions.tests_per_process``; 1 is a process per test), and so again for each
``--driver`` (another checkout's driver, e.g. ``git archive HEAD~1 src/bouts/runner/sandboxed``, to
measure a change before and after in the same run). They alternate within each round, so load on the machine
hits all alike. Wall time and CPU core-seconds (of every process,
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
from bouts.runner import RunOptions, _run, run_suites
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


def time_isolated(
    challenge: Challenge, workers: int, tests: int, meter: Meter, per_process: int = 1, driver: Path | None = None
) -> tuple[float, float]:
    """The runner on the suite: (wall s, CPU s). ``driver``: another checkout's ``sandboxed/``
    directory (e.g. ``git archive`` of an older commit), to compare drivers in the same rounds."""
    sandbox = get_sandbox("bubblewrap")
    options = RunOptions(workers=workers, tests_per_process=per_process)
    own = _run.DRIVER_LIB
    _run.DRIVER_LIB = driver or own
    try:
        cpu, start = meter.cpu_s(), time.perf_counter()
        report = run_suites(challenge, challenge.root / "code", sandbox=sandbox, options=options)
        elapsed, used = time.perf_counter() - start, meter.cpu_s() - cpu
    finally:
        _run.DRIVER_LIB = own
    passed = sum(r.outcome == "passed" for r in report.results)
    if passed != tests or report.tampering:
        raise SystemExit(f"benchmark run is not clean: {passed}/{tests} passed, {report.tampering}")
    return elapsed, used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--tests-per-process", default="1,64",
        help="comma-separated RunOptions.tests_per_process values, each measured in the same rounds",
    )  # fmt: skip
    parser.add_argument(
        "--driver", action="append", default=[], metavar="LABEL=DIR",
        help="also run another checkout's sandboxed/ directory (each --tests-per-process value) in the same rounds",
    )  # fmt: skip
    args = parser.parse_args()
    modes: list[tuple[str, int, Path | None]] = []
    for spec in args.driver:
        label, _, path = spec.partition("=")
        if not (Path(path) / "_bouts_driver" / "worker.py").is_file():
            raise SystemExit(f"--driver {spec}: {path} is not a sandboxed/ directory (no _bouts_driver/worker.py)")
        modes += [(f"{label}/{int(x)}", int(x), Path(path)) for x in args.tests_per_process.split(",")]
    modes += [(str(int(x)), int(x), None) for x in args.tests_per_process.split(",")]
    print(f"{'suite':8} {'per proc':>10} {'lean pytest wall/cpu s':>23} {'runner wall/cpu s':>18} {'ratio wall':>11}"
          f" {'ratio cpu':>10} {'runner cpu ms/test':>19}")  # fmt: skip
    with Meter() as meter:
        for name, template in (("trivial", TRIVIAL), ("sqlite", SQLITE)):
            with tempfile.TemporaryDirectory(prefix="bouts-bench-", dir=TMPFS) as tmp:
                challenge = make_suite(Path(tmp), template, args.tests)
                (challenge.root / "tmp").mkdir()
                time_bare(challenge.root, meter)  # warm the page cache once
                bare: list[tuple[float, float]] = []
                runner: dict[str, list[tuple[float, float]]] = {m[0]: [] for m in modes}
                for _ in range(args.repeat):
                    bare.append(time_bare(challenge.root, meter))
                    for label, per_process, driver in modes:
                        runner[label].append(
                            time_isolated(challenge, args.workers, args.tests, meter, per_process, driver)
                        )
            bw, bc = (statistics.median(x[i] for x in bare) for i in (0, 1))
            for label, _, _ in modes:
                rw, rc = (statistics.median(x[i] for x in runner[label]) for i in (0, 1))
                print(f"{name:8} {label:>10} {bw:11.3f} / {bc:9.3f} {rw:8.3f} / {rc:7.3f} {rw / bw:11.2f}"
                      f" {rc / bc:10.2f} {rc / args.tests * 1000:19.2f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
