"""``run_suites``: grade a submission's code against a challenge's test suites in a sandbox.

Flow: assemble a fresh workspace → start the driver (``_driver.py``) in the sandbox with the
write end of a pipe → read one JSON record per line as tests finish → assemble one outcome per
id. See ``docs/sandbox.md`` for the guarantees and their limits.
"""

from __future__ import annotations

import json
import os
import selectors
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bouts.errors import SandboxError
from bouts.loading import severity_for
from bouts.models.challenge import SUITES, Challenge, Limits, Suite
from bouts.models.results import RunReport, TestResult
from bouts.runner._channel import LineReader, Record, parse_record
from bouts.runner._verdicts import RunEnd, assemble, to_result
from bouts.runner._workspace import assemble_workspace
from bouts.sandbox import Mount, Sandbox, SandboxResult

DRIVER = Path(__file__).with_name("_driver.py")
_DRIVER_TARGET = "/bouts/driver.py"
_STARTUP_GRACE_S = 10.0
"""Wall time allowed on top of the suites' budgets for interpreter start and collection."""


def _driver_env(seed: int) -> dict[str, str]:
    # An empty environment plus an allow-list: nothing from the host (tokens, proxies) leaks in.
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "BOUTS_SEED": str(seed),
    }


def run_suites(
    challenge: Challenge,
    code_dir: Path,
    *,
    sandbox: Sandbox,
    suites: Sequence[Suite] = SUITES,
    progress: Callable[[TestResult], None] | None = None,
    seed: int | None = None,
    expected_ids: Sequence[str] | None = None,
) -> RunReport:
    """Run ``suites`` of ``challenge`` against ``code_dir`` in ``sandbox``; one outcome per test id.

    ``seed`` (default: the published ``challenge.spec.tests.seed``) reaches tests as ``BOUTS_SEED``
    and the ``bouts_seed`` fixture. ``expected_ids`` (e.g. ids collected on the reference
    solution) makes any of them that never reports ``missing``; without it, the ids collected
    here are expected. ``progress`` is called in the caller's thread once per result as it
    arrives. Raises :class:`~bouts.errors.SandboxError` when the sandbox or the driver could not
    start; everything the submission does is reported in the returned :class:`RunReport`.
    """
    seed = challenge.spec.tests.seed if seed is None else seed
    file_suite: dict[str, Suite] = {f: suite for suite in suites for f in challenge.test_files.get(suite, [])}
    if not file_suite:
        return RunReport(results=[], sandbox=sandbox.name, seeds=[seed])
    start = time.monotonic()
    limits = challenge.spec.limits
    n_suites = len({s for s in file_suite.values()})
    with tempfile.TemporaryDirectory(prefix="bouts-run-") as tmp:
        workspace = Path(tmp) / "workspace"
        removed = assemble_workspace(code_dir, challenge.root / "tests", workspace)
        isolated = sandbox.isolated
        config = {
            "files": sorted(file_suite),
            "suite_of": file_suite,
            "hidden_files": [f for f, s in file_suite.items() if s == "hidden"],
            "seed": seed,
            "test_timeout_s": limits.test_timeout_s,
            "suite_timeout_s": limits.suite_timeout_s,
            "max_output_kb": limits.max_output_kb,
            "memory_mb": limits.memory_mb,
            "workspace": "/workspace" if isolated else str(workspace),
            "pid_namespace": isolated,
        }
        driver = _DRIVER_TARGET if isolated else str(DRIVER)
        mounts = [Mount(DRIVER, _DRIVER_TARGET)] if isolated else []
        records, end, hello = _drive(
            sandbox,
            workspace,
            mounts,
            config,
            driver,
            limits=limits,
            timeout_s=limits.suite_timeout_s * n_suites + _STARTUP_GRACE_S,
            on_result=_progress_adapter(challenge, file_suite, progress),
            seed=seed,
        )
    if not hello:
        raise SandboxError(f"the test driver did not start in sandbox '{sandbox.name}' ({end})")
    results, stability = assemble(
        records,
        file_suite=file_suite,
        expected_ids=expected_ids,
        end=end,
        severity_of=lambda node: severity_for(challenge, node),
    )
    return RunReport(
        results=results,
        stability=stability,
        sandbox=sandbox.name,
        removed=removed,
        seeds=[seed],
        duration_s=time.monotonic() - start,
    )


def _progress_adapter(
    challenge: Challenge, file_suite: dict[str, Suite], progress: Callable[[TestResult], None] | None
) -> Callable[[Record], None]:
    def on_result(rec: Record) -> None:
        if progress is None or rec.outcome is None:
            return
        result = to_result(
            rec.id, rec.outcome, rec.detail, rec.duration_s,
            file_suite=file_suite, severity_of=lambda node: severity_for(challenge, node),
        )  # fmt: skip
        if result is not None:
            progress(result)

    return on_result


def _drive(
    sandbox: Sandbox,
    workspace: Path,
    mounts: list[Mount],
    config: dict[str, object],
    driver: str,
    *,
    limits: Limits,
    timeout_s: float,
    on_result: Callable[[Record], None],
    seed: int,
) -> tuple[list[Record], RunEnd, bool]:
    """Run the driver in a worker thread while this thread reads the result pipe."""
    read_fd, write_fd = os.pipe()
    config = {**config, "result_fd": write_fd}
    argv = [sys.executable, "-I", "-B", driver, json.dumps(config)]
    lock = threading.Lock()
    write_open = [True]

    def close_write() -> None:
        with lock:
            if write_open[0]:
                os.close(write_fd)
                write_open[0] = False

    outcome: dict[str, SandboxResult | BaseException] = {}

    def work() -> None:
        try:
            outcome["result"] = sandbox.run(
                argv, workspace=workspace, env=_driver_env(seed), limits=limits,
                timeout_s=timeout_s, mounts=mounts, pass_fds=[write_fd], on_spawn=close_write,
            )  # fmt: skip
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc
        finally:
            close_write()

    worker = threading.Thread(target=work, name="bouts-sandbox", daemon=True)
    worker.start()
    records, oversized = _read_records(read_fd, worker, on_result)
    worker.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    res = outcome["result"]
    assert isinstance(res, SandboxResult)
    end = RunEnd(
        timed_out=res.timed_out, exit_code=res.exit_code, signal=res.signal, protocol_violations=oversized
    )
    return records, end, any(r.kind == "hello" for r in records)


def _read_records(
    read_fd: int, worker: threading.Thread, on_result: Callable[[Record], None]
) -> tuple[list[Record], int]:
    """Read records until EOF; stop waiting shortly after the sandbox returned (escaped writers)."""
    reader = LineReader(read_fd)
    records: list[Record] = []
    sel = selectors.DefaultSelector()
    sel.register(read_fd, selectors.EVENT_READ)
    finished_at: float | None = None
    try:
        while True:
            if not worker.is_alive():
                finished_at = finished_at or time.monotonic()
                if time.monotonic() - finished_at > 2.0:
                    break
            if not sel.select(0.2):
                continue
            lines = reader.feed()
            if lines is None:
                break
            for line in lines:
                rec = parse_record(line)
                records.append(rec)
                if rec.kind == "result":
                    on_result(rec)
    finally:
        sel.close()
        os.close(read_fd)
    return records, reader.oversized
