"""The in-sandbox test driver: collect once, fork a child per test, report over a pipe.

This file is a plain script. The engine bind-mounts it read-only into the sandbox and runs it
with ``python -I -B``; it imports nothing from ``bouts`` and is not importable from the workspace.

Protocol: one JSON object per line on the fd named in the config (never stdout, never a file):
``hello`` (before any submission code is imported), ``warning``, ``collect_error``,
``collected``, ``result`` (one per test), ``done``. The host (``bouts.runner._channel``) parses
and checks them.

Known limit (closed by issue 3): collection imports the submission's code in this process
before the children fork, so a hostile import can tamper with this process's reporting.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import selectors
import signal
import sys
import time

_CONFIG = json.loads(sys.argv[1])
_FD: int = _CONFIG["result_fd"]
_DETAIL_MAX = 1000


def _send(fd: int, record: dict) -> None:
    data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    while data:
        n = os.write(fd, data)
        data = data[n:]


_send(_FD, {"type": "hello", "pid": os.getpid()})
# Nothing below may rely on the workspace before this point; the test framework is imported from
# the engine's read-only environment, ahead of the workspace on sys.path.
import pytest  # noqa: E402

sys.path.append(_CONFIG["workspace"])  # appended: a submission module can never shadow the stdlib or pytest


def _short(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 3] + "..."


def _last_line(report: pytest.TestReport) -> str:
    rep = getattr(report, "longrepr", None)
    crash = getattr(getattr(rep, "reprcrash", None), "message", None)
    if crash:
        return crash.splitlines()[0] if crash else ""
    return str(rep).strip().splitlines()[-1] if rep else ""


class BoutsPlugin:
    """Our own pytest plugin: owns the test loop and the ``bouts_seed`` fixture."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.exception: str | None = None
        self.reports: list[pytest.TestReport] = []
        self.hidden_files = set(_CONFIG["hidden_files"])

    def pytest_configure(self, config: pytest.Config) -> None:
        # The challenge's own markers are part of the contract, not warnings against the submission.
        config.addinivalue_line("markers", "severity(level): adversarial test severity (critical/high/medium/low)")
        config.addinivalue_line("markers", "behaviour(name): the behaviour a test checks")

    @pytest.fixture
    def bouts_seed(self) -> int:
        """The seed of this run (also in ``BOUTS_SEED``): hidden tests derive their data from it."""
        return int(_CONFIG["seed"])

    def pytest_warning_recorded(self, warning_message, when, nodeid, location) -> None:  # noqa: ANN001
        text = f"{warning_message.category.__name__}: {warning_message.message}"
        if when == "collect" or when == "config":
            _send(_FD, {"type": "warning", "id": nodeid, "text": _short(text)})
        else:
            self.warnings.append(_short(text))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reports.append(report)

    def pytest_exception_interact(self, node, call, report) -> None:  # noqa: ANN001
        self.exception = type(call.excinfo.value).__name__ if call.excinfo else None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            _send(_FD, {"type": "collect_error", "id": report.nodeid, "detail": _short(_last_line(report))})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        _send(_FD, {"type": "collected", "ids": [item.nodeid for item in session.items]})
        budget = float(_CONFIG["suite_timeout_s"])
        spent: dict[str, float] = {}
        for item in session.items:
            suite = _CONFIG["suite_of"].get(item.nodeid.split("::")[0], "")
            if spent.get(suite, 0.0) >= budget:
                _send(_FD, _record(item.nodeid, "timeout", 0.0, "suite time budget exhausted"))
                continue
            record = self._fork_and_run(item)
            spent[suite] = spent.get(suite, 0.0) + record["duration_s"]
            _send(_FD, record)
        return True

    def _fork_and_run(self, item: pytest.Item) -> dict:
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: run exactly one test, report, and leave without cleanup
            try:
                os.setpgid(0, 0)
                os.close(_FD)  # the host channel is out of the test's reach
                os.close(res_r)
                os.close(out_r)
                os.dup2(out_w, 1)
                os.dup2(out_w, 2)
                os.close(out_w)
                cpu = int(float(_CONFIG["test_timeout_s"])) + 1
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
                _send(res_w, self._run_in_child(item))
            finally:
                os._exit(0)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # both sides set it: no race with the child's first action
        os.close(res_w)
        os.close(out_w)
        return _supervise(item.nodeid, pid, res_r, out_r, start)

    def _run_in_child(self, item: pytest.Item) -> dict:
        self.warnings = []
        self.exception = None
        self.reports = []
        start = time.monotonic()
        # The full hook (not bare runtestprotocol) so pytest's wrappers run: warnings capture,
        # unraisable-exception and thread-exception checks, logging.
        item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        outcome, detail = _verdict(self.reports, self.exception)
        if item.nodeid.split("::")[0] in self.hidden_files and outcome != "passed":
            # Hidden tests' source and expected values never leave the sandbox: the kind only.
            detail = self.exception or detail.split(":")[0]
        rec = _record(item.nodeid, outcome, time.monotonic() - start, detail)
        rec["warnings"] = sorted(set(self.warnings))
        return rec


def _record(nodeid: str, outcome: str, duration: float, detail: str) -> dict:
    return {"type": "result", "id": nodeid, "outcome": outcome, "duration_s": duration, "detail": detail}


def _verdict(reports: list, exception: str | None) -> tuple[str, str]:
    """Map pytest's setup/call/teardown reports to one outcome. Only a clean pass passes."""
    if exception == "MemoryError":
        return "crashed", f"out of memory (MemoryError at the {_CONFIG['memory_mb']} MB limit)"
    for rep in reports:
        xfail = hasattr(rep, "wasxfail")
        if rep.when != "call" and rep.failed:
            return "error", _short(f"{rep.when} error: {_last_line(rep)}")
        if rep.skipped:
            word = "xfailed" if xfail else "skipped"
            reason = rep.wasxfail if xfail else (rep.longrepr[2] if isinstance(rep.longrepr, tuple) else "")
            return "failed", _short(f"{word}: {reason}")
        if rep.when == "call" and rep.failed:
            return "failed", _short(_last_line(rep))
        if rep.when == "call" and rep.passed and xfail:
            return "failed", _short(f"xpassed: {rep.wasxfail}")
    if not any(rep.when == "call" for rep in reports):
        return "error", "the test did not run"
    return "passed", ""


def _supervise(nodeid: str, pid: int, res_r: int, out_r: int, start: float) -> dict:
    """Wait for one child: enforce its wall timeout, cap its output, read its one report."""
    timeout = float(_CONFIG["test_timeout_s"])
    cap = int(_CONFIG["max_output_kb"]) * 1024
    pidfd = os.pidfd_open(pid)
    sel = selectors.DefaultSelector()
    sel.register(pidfd, selectors.EVENT_READ)
    sel.register(res_r, selectors.EVENT_READ)
    sel.register(out_r, selectors.EVENT_READ)
    result, out_bytes, timed_out, exited = b"", 0, False, False
    deadline = start + timeout
    while not exited:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        for key, _ in sel.select(left):
            if key.fd == pidfd:
                exited = True
            elif key.fd == res_r:
                chunk = os.read(res_r, 65536)
                if not chunk:
                    sel.unregister(res_r)
                elif len(result) < 4 * 1024 * 1024:
                    result += chunk
            else:
                chunk = os.read(out_r, 65536)
                if not chunk:
                    sel.unregister(out_r)
                out_bytes += len(chunk)
    duration = time.monotonic() - start
    # Kill the test's process group, whatever it left behind, then anything that left the group.
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        with contextlib.suppress(OSError):
            target()
    _, status = os.waitpid(pid, 0)
    _sweep()
    os.set_blocking(res_r, False)
    try:
        while len(result) < 4 * 1024 * 1024 and (chunk := os.read(res_r, 65536)):
            result += chunk
    except BlockingIOError:
        pass
    sel.close()
    for fd in (pidfd, res_r, out_r):
        os.close(fd)
    if timed_out:
        return _record(nodeid, "timeout", duration, f"killed at the {timeout:g} s test timeout")
    lines = [ln for ln in result.split(b"\n") if ln.strip()]
    if len(lines) != 1:
        if not lines:
            return _record(nodeid, "crashed", duration, _death(status))
        return _record(nodeid, "error", duration, "the test wrote to the result channel")
    try:
        rec = json.loads(lines[0])
    except ValueError:
        return _record(nodeid, "error", duration, "unreadable report from the test process")
    if not isinstance(rec, dict) or rec.get("id") != nodeid:
        return _record(nodeid, "error", duration, "the test wrote to the result channel")
    rec["duration_s"] = duration
    if out_bytes > cap:
        rec["detail"] = _short(f"{rec.get('detail', '')} (printed {out_bytes} bytes; output capped)".strip())
    return rec


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        why = {"SIGXCPU": " (CPU time limit)", "SIGXFSZ": " (file size limit)", "SIGSEGV": " (segfault)"}
        return f"killed by {name}{why.get(name, '')} before reporting"
    return f"exited with code {os.WEXITSTATUS(status)} before reporting (os._exit or a crash)"


def _sweep() -> None:
    """Kill every process in our PID namespace but us and init: e.g. a test's setsid'd daemon.

    Only when the sandbox promised a private PID namespace (and we look like it: a tiny pid,
    not root): on the ``none`` backend /proc is the host's.
    """
    me = os.getpid()
    if not _CONFIG["pid_namespace"] or me > 10 or os.getuid() == 0:
        return
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (1, me):
            with contextlib.suppress(OSError):
                os.kill(int(entry), signal.SIGKILL)


def main() -> int:
    os.environ["BOUTS_SEED"] = str(_CONFIG["seed"])
    args = [
        *_CONFIG["files"],
        f"--rootdir={_CONFIG['workspace']}",
        f"--confcutdir={_CONFIG['workspace']}/tests",
        "-c", "/dev/null",  # no ini file from the workspace steers the run
        "-p", "no:cacheprovider", "-p", "no:stepwise", "-p", "no:pastebin", "-p", "no:junitxml",
        "-o", "addopts=", "-o", "pythonpath=", "-o", "usefixtures=", "-o", "filterwarnings=",
        "-o", "xfail_strict=true", "-o", "required_plugins=",
        "-W", "always::ResourceWarning", "-W", "always::DeprecationWarning",
        "--capture=no", "-q", "--basetemp=/tmp/bouts-pytest", "--import-mode=prepend",
    ]  # fmt: skip
    code = pytest.main(args, plugins=[BoutsPlugin()])
    _send(_FD, {"type": "done", "exit": int(code)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
