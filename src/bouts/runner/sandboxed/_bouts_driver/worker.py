"""A worker: collects the suites (this imports the submission), then runs one test per forked child.

A worker is forked from the supervisor and is *untrusted* from the moment collection starts:
everything it sends is checked by the supervisor and the host. Its children run exactly one
test each, in their own process group, with the test's output on a capped pipe.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import selectors
import signal
import sys
import time

import pytest

from _bouts_driver import exploits, observe, procs, tamper
from _bouts_driver.fixtures import BoutsFixtures
from _bouts_driver.proto import LineBuffer, result, send, short

_MAX_REPORT = 6 * 1024 * 1024


def _last_line(report: pytest.TestReport) -> str:
    rep = getattr(report, "longrepr", None)
    crash = getattr(getattr(rep, "reprcrash", None), "message", None)
    if crash:
        return crash.splitlines()[0]
    return str(rep).strip().splitlines()[-1] if rep else ""


def verdict(reports: list, exception: str | None, memory_mb: int) -> tuple[str, str]:
    """Map pytest's setup/call/teardown reports to one outcome. Only a clean pass passes."""
    if exception == "MemoryError":
        return "crashed", f"out of memory (MemoryError at the {memory_mb} MB limit)"
    for rep in reports:
        xfail = hasattr(rep, "wasxfail")
        if rep.when != "call" and rep.failed:
            return "error", short(f"{rep.when} error: {_last_line(rep)}")
        if rep.skipped:
            word = "xfailed" if xfail else "skipped"
            reason = rep.wasxfail if xfail else (rep.longrepr[2] if isinstance(rep.longrepr, tuple) else "")
            return "failed", short(f"{word}: {reason}")
        if rep.when == "call" and rep.failed:
            return "failed", short(_last_line(rep))
        if rep.when == "call" and rep.passed and xfail:
            return "failed", short(f"xpassed: {rep.wasxfail}")
    if not any(rep.when == "call" for rep in reports):
        return "error", "the test did not run"
    return "passed", ""


class WorkerPlugin:
    """Owns pytest's test loop in a worker: take a test id from the supervisor, fork, report."""

    def __init__(self, config: dict, up_fd: int, cmd_fd: int, baseline: dict[str, str], fixtures: BoutsFixtures):
        self.config, self.up, self.cmd, self.baseline, self.fixtures = config, up_fd, cmd_fd, baseline, fixtures
        self.warnings: list[str] = []
        self.exception: str | None = None
        self.reports: list[pytest.TestReport] = []
        self.hidden_files = set(config["hidden_files"])

    def pytest_warning_recorded(self, warning_message, when, nodeid, location) -> None:  # noqa: ANN001
        text = short(f"{warning_message.category.__name__}: {warning_message.message}")
        if when in ("collect", "config"):
            send(self.up, {"type": "warning", "id": nodeid, "text": text})
        else:
            self.warnings.append(text)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reports.append(report)

    def pytest_exception_interact(self, node, call, report) -> None:  # noqa: ANN001
        self.exception = type(call.excinfo.value).__name__ if call.excinfo else None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            send(self.up, {"type": "collect_error", "id": report.nodeid, "detail": short(_last_line(report))})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        items = {item.nodeid: item for item in session.items}
        if not any("caplog" in getattr(item, "fixturenames", ()) for item in items.values()):
            # Log capture only feeds ``caplog`` and report sections nobody reads; its six hooks per
            # test are a tenth of a trivial test's cost in the forked process.
            session.config.pluginmanager.unregister(name="logging-plugin")
        prints = tamper.fingerprint()
        roots = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, self.config["lib"])]
        roots.append(os.path.realpath(self.config["workspace"]) + "/tests/")
        if self.config.get("deps"):  # the challenge's own dependencies may bring pytest plugins
            roots.append(os.path.realpath(self.config["deps"]))
        send(self.up, {
            "type": "collected", "ids": list(items), "digest": tamper.digest(prints),
            "codes": {nodeid: tamper.test_code(item) for nodeid, item in items.items()},
            "changed": tamper.changed(self.baseline, prints),
            "foreign": tamper.foreign_plugins(session.config.pluginmanager, roots),
            "exploits": exploits.take(),  # attempts made while importing the submission
        })  # fmt: skip
        lines = LineBuffer()
        while True:
            chunk = os.read(self.cmd, 65536)
            if not chunk:
                return True
            for line in lines.feed(chunk):
                nodeid = line.decode()
                item = items.get(nodeid)
                if item is None:
                    send(self.up, result(nodeid, "error", 0.0, "not collected in this run"))
                else:
                    send(self.up, self._fork_and_run(item))

    def _fork_and_run(self, item: pytest.Item) -> dict:
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = procs.fork_with_retry()
        except OSError as exc:
            for fd in (res_r, res_w, out_r, out_w):
                os.close(fd)
            return result(item.nodeid, "crashed", 0.0, f"could not start the test process: {exc}")
        start = time.monotonic()  # a wait for a free process slot is not the test's time
        if pid == 0:  # the child: run exactly one test, report, and leave without cleanup
            try:
                os.setpgid(0, 0)
                for fd in (self.up, self.cmd, res_r, out_r):
                    os.close(fd)  # nothing but this test's own report pipe stays in reach
                os.dup2(out_w, 1)
                os.dup2(out_w, 2)
                os.close(out_w)
                cpu = int(float(self.config["test_timeout_s"])) + 1
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
                budget = _process_budget(self.config)
                if budget is not None:  # lowered for good: the test cannot raise it again
                    resource.setrlimit(resource.RLIMIT_NPROC, (budget, budget))
                send(res_w, self._run_in_child(item))
            finally:
                os._exit(0)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # both sides set it: no race with the child's first action
        os.close(res_w)
        os.close(out_w)
        return _supervise(item.nodeid, pid, res_r, out_r, start, self.config)

    def _run_in_child(self, item: pytest.Item) -> dict:
        self.warnings, self.exception, self.reports = [], None, []
        observe.reset()
        # The global RNG starts from the phase's seed and the test's id: a test that draws unseeded
        # random inputs gets the same ones in the reference's golden run and in the graded run.
        random.seed(f"{self.config['seed']}:{item.nodeid}")
        start = time.monotonic()
        # The full hook (not bare runtestprotocol) so pytest's wrappers run: warnings capture,
        # unraisable-exception and thread-exception checks, logging.
        item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        outcome, detail = verdict(self.reports, self.exception, int(self.config["memory_mb"]))
        if item.nodeid.split("::")[0] in self.hidden_files and outcome != "passed":
            # Hidden tests' source and expected values never leave the sandbox: the kind only.
            detail = self.exception or detail.split(":")[0]
        rec = result(item.nodeid, outcome, time.monotonic() - start, detail)
        prints = tamper.fingerprint()
        rec["digest"] = tamper.digest(prints)
        rec["code"] = tamper.test_code(item)
        rec["changed"] = tamper.changed(self.baseline, prints)
        rec["observations"] = list(self.fixtures.expectations.digests)
        # Externalised assertions: what the test observed; the host decides (docs/sandbox.md).
        rec["obs"] = observe.occurrences
        rec["obs_overflow"] = observe.overflow
        rec["warnings"] = sorted(set(self.warnings))
        rec["exploits"] = exploits.take()  # network attempts the audit hook saw during the test
        return rec


def _process_budget(config: dict) -> int | None:
    """The test's own RLIMIT_NPROC: the run's limit minus a slot for the supervisor and one per worker.

    The count is per user, so without this a fork bomb in one test would hold every slot and
    the other worker could not start its next test (it did: "could not start the test process").
    """
    limit = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    return max(1, limit - int(config["workers"]) - 1)


def _supervise(nodeid: str, pid: int, res_r: int, out_r: int, start: float, config: dict) -> dict:
    """Wait for one test process: wall timeout, capped output, exactly one report; then sweep.

    The test's processes die with it: the sweep kills whatever it left (and whatever that forks
    meanwhile) until nothing is left. A test that left a fork bomb behind, or whose process or
    one it started was killed by SIGSYS (a call the seccomp filter forbids), is reported so.
    """
    rec, status, swept = _wait(nodeid, pid, res_r, out_r, start, config)
    if rec.get("outcome") == "passed" and os.WIFSIGNALED(status):
        # An honest test process leaves through os._exit(0) right after its report; one killed by a
        # signal after "passing" wrote a report and then made sure nothing more could be said.
        how = _death(status).removesuffix(" before reporting")
        rec["outcome"], rec["detail"] = "error", f"the test process was {how} after reporting"
        rec["died_after_report"] = True
    found = list(rec["exploits"]) if isinstance(rec.get("exploits"), list) else []
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS:
        found.append(exploits.sigsys_evidence("the test process"))
    if swept.sigsys:
        found.append(exploits.sigsys_evidence(f"{swept.sigsys} process(es) the test started"))
    rec["exploits"] = found
    budget = _process_budget(config)
    if swept.killed and budget is not None and swept.killed >= max(4, budget // 2):
        if rec.get("outcome") in ("passed", "failed", "error"):
            rec["outcome"] = "crashed"
            rec["detail"] = f"fork bomb: the test left {swept.killed} processes running (its limit is {budget})"
    elif swept.killed:
        warnings = rec["warnings"] if isinstance(rec.get("warnings"), list) else []
        rec["warnings"] = [*warnings, f"ResourceWarning: the test left {swept.killed} process(es) behind; killed"]
    return rec


def _wait(nodeid: str, pid: int, res_r: int, out_r: int, start: float, config: dict) -> tuple[dict, int, procs.Sweep]:
    """The test's record (or why there is none), its wait status and what the sweep killed."""
    timeout = float(config["test_timeout_s"])
    cap = int(config["max_output_kb"]) * 1024
    pidfd = os.pidfd_open(pid)
    sel = selectors.DefaultSelector()
    for fd in (pidfd, res_r, out_r):
        sel.register(fd, selectors.EVENT_READ)
    report, out_bytes, timed_out, exited = b"", 0, False, False
    deadline = start + timeout
    while not exited:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        for key, _ in sel.select(left):
            if key.fd == pidfd:
                exited = True
                continue
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fd)
            elif key.fd == res_r and len(report) < _MAX_REPORT:
                report += chunk
            elif key.fd == out_r:
                out_bytes += len(chunk)
    duration = time.monotonic() - start
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    swept = procs.kill_children()  # whatever the test left behind, e.g. a setsid'd daemon: it is ours now
    os.set_blocking(res_r, False)
    with contextlib.suppress(BlockingIOError):
        while len(report) < _MAX_REPORT and (chunk := os.read(res_r, 65536)):
            report += chunk
    sel.close()
    for fd in (pidfd, res_r, out_r):
        os.close(fd)
    if timed_out:
        return result(nodeid, "timeout", duration, f"killed at the {timeout:g} s test timeout"), status, swept
    lines = [ln for ln in report.split(b"\n") if ln.strip()]
    if not lines:
        return result(nodeid, "crashed", duration, _death(status)), status, swept
    if len(lines) != 1:
        return result(nodeid, "error", duration, "the test wrote to the result channel"), status, swept
    import json

    try:
        rec = json.loads(lines[0])
    except ValueError:
        return result(nodeid, "error", duration, "unreadable report from the test process"), status, swept
    if not isinstance(rec, dict) or rec.get("id") != nodeid:
        return result(nodeid, "error", duration, "the test wrote to the result channel"), status, swept
    rec["duration_s"] = duration
    if out_bytes > cap:
        rec["detail"] = short(f"{rec.get('detail', '')} (printed {out_bytes} bytes; output capped)")
    return rec, status, swept


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        why = {"SIGXCPU": " (CPU time limit)", "SIGXFSZ": " (file size limit)", "SIGSEGV": " (segfault)",
               "SIGSYS": " (a system call the sandbox forbids)"}  # fmt: skip
        return f"killed by {name}{why.get(name, '')} before reporting"
    return f"exited with code {os.WEXITSTATUS(status)} before reporting (os._exit or a crash)"


def pytest_args(config: dict) -> list[str]:
    """The pinned invocation: nothing from the workspace configures pytest."""
    ws = config["workspace"]
    return [
        *config["files"],
        f"--rootdir={ws}", f"--confcutdir={ws}/tests",
        "-c", "/dev/null",  # no ini file, [tool.pytest] table or setup.cfg from the workspace
        "-p", "no:cacheprovider", "-p", "no:stepwise", "-p", "no:pastebin", "-p", "no:junitxml",
        # Nothing a run uses, each a hook on every file, fixture or test (docs/sandbox.md):
        "-p", "no:doctest", "-p", "no:setuponly", "-p", "no:setupplan", "-p", "no:faulthandler",
        "-o", "addopts=", "-o", "pythonpath=", "-o", "usefixtures=", "-o", "filterwarnings=",
        "-o", "xfail_strict=true", "-o", "required_plugins=",
        "-W", "always::ResourceWarning", "-W", "always::DeprecationWarning",
        "--capture=no", "-q", f"--basetemp=/tmp/bouts-pytest-{os.getpid()}", "--import-mode=prepend",
    ]  # fmt: skip


def main(config: dict, up_fd: int, cmd_fd: int, baseline: dict[str, str]) -> int:
    """Entry point in a freshly forked worker; returns pytest's exit code."""
    procs.become_subreaper()
    fixtures = BoutsFixtures(config)
    plugin = WorkerPlugin(config, up_fd, cmd_fd, baseline, fixtures)
    return int(pytest.main(pytest_args(config), plugins=[plugin, fixtures]))
