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
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from _bouts_driver import exploits, observe, procs, seedwatch, tamper
from _bouts_driver.fixtures import BoutsFixtures
from _bouts_driver.proto import BODY, LineBuffer, limit, loads, result, send, short

_MAX_REPORT = 8 * 1024 * 1024
"""Bytes of a test process's report the worker reads (``observe.MAX_TOTAL`` of observations and the
rest); the supervisor reads a worker's line up to ``proto.LINE_CAP``, the host up to 16 MiB."""


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


class QuietReporter:
    """Stands in for pytest's terminal reporter after collection: its terminal writer (read by
    assertion messages through ``config.get_terminal_writer()``), and no hooks."""

    def __init__(self, tw: object) -> None:
        self._tw = tw


class WorkerPlugin:
    """Owns pytest's test loop in a worker: take a test id from the supervisor, fork, report."""

    def __init__(
        self, config: dict, up_fd: int, cmd_fd: int, baseline: dict[str, str], fixtures: BoutsFixtures,
        clones: list[tuple[int, int]] | None = None,
    ) -> None:  # fmt: skip
        self.config, self.up, self.cmd, self.baseline, self.fixtures = config, up_fd, cmd_fd, baseline, fixtures
        self.clones = clones or []
        """(up, cmd) channels of the clones this worker forks once it has collected (docs/sandbox.md, "Clones")."""
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

    def pytest_configure(self, config: pytest.Config) -> None:
        # pytest's unraisable-exception plugin runs five full garbage collections when the session
        # ends, to report exceptions raised in ``__del__`` of objects nobody freed. A worker runs no
        # test itself (each runs in a forked process, whose unraisable exceptions the plugin still
        # reports per test), and it ends once its last test reported: five walks of a heap it
        # shares copy-on-write, 60 % of a worker's own cost outside collection (docs/benchmarks.md).
        with contextlib.suppress(ImportError):
            from _pytest.unraisableexception import gc_collect_iterations_key

            config.stash[gc_collect_iterations_key] = 0

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
        # The terminal reporter only prints progress no one reads (collection errors and warnings
        # reach the supervisor through this plugin's own hooks): hooks and a write on the output
        # pipe (which wakes the worker) per test. A stand-in without hooks keeps its terminal
        # writer, which assertion messages use.
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            session.config.pluginmanager.unregister(reporter)
            session.config.pluginmanager.register(QuietReporter(reporter._tw), "terminalreporter")
        self._preload()
        send(self.up, self._collected(session, items))
        if self.clones and self._fork_clones(session):  # this process is a clone now
            send(self.up, {"type": "clone", "pid": os.getpid()})
            send(self.up, self._collected(session, items))  # its own fingerprint, taken after the fork
        lines = LineBuffer()
        per_process = max(1, int(self.config.get("tests_per_process") or 1))
        batch = TestProcess(self, items, per_process)  # with 1, a process per test
        try:
            while True:
                chunk = os.read(self.cmd, 65536)
                if not chunk:
                    break
                for line in lines.feed(chunk):
                    nodeid = line.decode()
                    item = items.get(nodeid)
                    if item is None:
                        send(self.up, result(nodeid, "error", 0.0, "not collected in this run"))
                    else:
                        send(self.up, batch.run(item))
        finally:
            batch.close()
        # No more tests, every record sent: pytest's end of session would only print summaries no one
        # reads and free its objects, page by copy-on-write page (procs.leave).
        procs.leave(0)

    def _preload(self) -> None:
        """The challenge's ``[tests] preload``: library modules imported here, once, so that no test
        process imports them again (docs/sandbox.md, "Preloaded modules"); before this worker's
        integrity record, which covers them. A module of the workspace (the submission's, the
        tests') is not one and is skipped, as is one that is not there or fails to import: silently,
        since a warning would count against the submission's stability (``bouts check`` names them)."""
        import importlib
        import importlib.util

        workspace = os.path.realpath(self.config["workspace"]) + os.sep
        for name in self.config.get("preload") or ():
            try:
                spec = importlib.util.find_spec(name)
                if spec is not None and not os.path.realpath(spec.origin or workspace).startswith(workspace):
                    importlib.import_module(name)
            except Exception:  # noqa: BLE001, S112 (a preload that fails costs its speed, never the run)
                continue

    def _collected(self, session: pytest.Session, items: dict[str, pytest.Item]) -> dict:
        """The record that says this worker collected: the ids, and the integrity evidence of its import."""
        prints = tamper.fingerprint()
        roots = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, self.config["lib"])]
        roots.append(os.path.realpath(self.config["workspace"]) + "/tests/")
        if self.config.get("deps"):  # the challenge's own dependencies may bring pytest plugins
            roots.append(os.path.realpath(self.config["deps"]))
        return {
            "type": "collected", "ids": list(items), "digest": tamper.digest(prints),
            "codes": {nodeid: tamper.test_code(item) for nodeid, item in items.items()},
            "changed": tamper.changed(self.baseline, prints),
            "foreign": tamper.foreign_plugins(session.config.pluginmanager, roots),
            "exploits": exploits.take(),  # attempts made while importing the submission
            **({"seeded": seedwatch.collection_seeded()} if self.config.get("track_seed") else {}),
        }  # fmt: skip

    def _fork_clones(self, session: pytest.Session) -> bool:
        """Fork this worker's clones, each a copy of it as collection left it, handed to the
        supervisor by a double fork (docs/sandbox.md, "Clones"). True in a clone, which goes on as
        a worker on its own channels; False in this worker, which keeps none of theirs."""
        clones, self.clones = self.clones, []
        sys.stdout.flush()
        sys.stderr.flush()
        procs.become_subreaper(False)  # so that the middle process's exit hands the clone to the supervisor
        try:
            for k, (up, cmd) in enumerate(clones):
                try:
                    middle = procs.fork_with_retry()
                except OSError:
                    break  # fewer workers: the others run every test
                if middle == 0:
                    me = os.getpid()
                    try:
                        child = os.fork()
                    except BaseException:  # noqa: BLE001
                        os._exit(1)
                    if child:
                        os._exit(0)
                    others = [fd for j, pair in enumerate(clones) if j != k for fd in pair]
                    self._become_clone(session, me, up, cmd, others)
                    return True
                os.waitpid(middle, 0)  # reaped: its child has been reparented already
        finally:
            procs.become_subreaper()  # the worker, and a clone, are subreapers again
        for fd in (x for pair in clones for x in pair):
            os.close(fd)
        return False

    def _become_clone(self, session: pytest.Session, middle: int, up: int, cmd: int, others: list[int]) -> None:
        """In a clone: the worker's channels closed and its own taken, a temporary directory of its
        own; returns once the supervisor is its parent, so that it can check the pid the clone gives."""
        for fd in (self.up, self.cmd, *others):
            os.close(fd)
        self.up, self.cmd = up, cmd
        factory = getattr(session.config, "_tmp_path_factory", None)
        if factory is not None:  # pytest's --basetemp holds the collecting worker's pid: not to be shared
            factory._given_basetemp = Path(f"/tmp/bouts-pytest-{os.getpid()}")
            factory._basetemp = None
        stop = time.monotonic() + 5.0
        while os.getppid() == middle and time.monotonic() < stop:
            time.sleep(0.0005)

    def _run_in_child(self, item: pytest.Item) -> dict:
        self.warnings, self.exception, self.reports = [], None, []
        self.fixtures.expectations.digests.clear()  # a test process may run several tests
        observe.reset()
        # The global RNG starts from the phase's seed and the test's id: a test that draws unseeded
        # random inputs gets the same ones in the reference's golden run and in the graded run.
        random.seed(f"{self.config['seed']}:{item.nodeid}")
        watch = bool(self.config.get("track_seed"))
        if watch:
            seedwatch.begin()
        start = time.monotonic()
        # The full hook (not bare runtestprotocol) so pytest's wrappers run: warnings capture,
        # unraisable-exception and thread-exception checks, logging.
        item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        seeded = seedwatch.seeded() if watch else None
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
        # Externalised assertions: what the test observed; the host decides (docs/sandbox.md). The
        # record's body: the hops to the host carry it unparsed (proto.BODY).
        rec[BODY] = observe.text()
        rec["obs_overflow"] = observe.overflow
        rec["warnings"] = sorted(set(self.warnings))
        rec["exploits"] = exploits.take()  # network attempts the audit hook saw during the test
        if seeded is not None:
            rec["seeded"] = seeded
        return rec


class Spawned(NamedTuple):
    """A test process just forked, and the worker's ends of its pipes."""

    pid: int
    res_r: int
    """Its report channel: one JSON line per test."""
    out_r: int
    """Its stdout and stderr, counted against the output cap."""
    ids_w: int
    """Where the worker writes the ids of the tests it is to run (-1: it runs one test, no ids)."""


def spawn(plugin: WorkerPlugin, body: Callable[[int, int], None], ids: bool = False) -> Spawned | str:
    """Fork a test process, or say why it could not start (the worker is left as it was).

    The process is the leader of its own process group; nothing but its own pipes stays open in
    it (the worker's channels to the supervisor are closed); its stdout and stderr go to the
    output pipe; its RLIMIT_NPROC is lowered to the test's budget. Then ``body(res_w, ids_r)``
    runs (``ids_r`` is -1 without ``ids``), and the process leaves through ``os._exit`` without
    cleanup, whatever ``body`` did.
    """
    ids_r, ids_w = os.pipe() if ids else (-1, -1)
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = procs.fork_with_retry()
    except OSError as exc:
        for fd in (ids_r, ids_w, res_r, res_w, out_r, out_w):
            if fd >= 0:
                os.close(fd)
        return f"could not start the test process: {exc}"
    if pid == 0:  # the test process
        try:
            os.setpgid(0, 0)
            for fd in (plugin.up, plugin.cmd, ids_w, res_r, out_r):
                if fd >= 0:
                    os.close(fd)  # nothing but the ids in and the report out stays in reach
            os.dup2(out_w, 1)
            os.dup2(out_w, 2)
            os.close(out_w)
            budget = _process_budget(plugin.config)
            if budget is not None:  # lowered for good: the test cannot raise it again
                resource.setrlimit(resource.RLIMIT_NPROC, (budget, budget))
            body(res_w, ids_r)
        finally:
            os._exit(0)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # both sides set it: no race with the child's first action
    for fd in (ids_r, res_w, out_w):
        if fd >= 0:
            os.close(fd)
    return Spawned(pid, res_r, out_r, ids_w)


def _process_budget(config: dict) -> int | None:
    """The test's own RLIMIT_NPROC: the run's limit minus a slot for the supervisor and one per worker.

    The count is per user, so without this a fork bomb in one test would hold every slot and
    the other worker could not start its next test (it did: "could not start the test process").
    """
    limit = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    return max(1, limit - int(config["workers"]) - 1)


class TestProcess:
    """Tests one after another in one forked test process: ``per_process`` of them (the run's
    ``tests_per_process``; 1, the default, is a process per test).

    The worker hands the process one id at a time and holds each test to its own timeout and
    output cap; a process that hangs is killed and one that dies ends only the test it was running,
    and whatever it left is swept: its processes die with it (a fork bomb, or one killed by SIGSYS,
    a call the seccomp filter forbids, is reported so: ``_after``). The process ends after
    ``per_process`` tests, and right after any test that errored or crashed, changed a
    fingerprint, tried an exploit, left a process or a thread running, or changed the working
    directory or the environment: the next test gets a process freshly forked from the worker.
    What a test leaves in the process's memory (a module global, a cache) is seen by the tests
    after it in the same process, as in one pytest process (docs/sandbox.md, "Tests per process").
    """

    __test__ = False  # not a test class, whoever imports it

    def __init__(self, plugin: WorkerPlugin, items: dict[str, pytest.Item], per_process: int) -> None:
        self.plugin, self.items, self.per_process = plugin, items, per_process
        self.config = plugin.config
        self.pid = 0
        self.ids_w = self.res_r = self.out_r = self.pidfd = -1
        self.sel: selectors.BaseSelector | None = None
        self.buf = bytearray()

    # -- in the worker --------------------------------------------------------------------------

    def run(self, item: pytest.Item) -> dict:
        """Run one test in the live test process (forked first if there is none); its record."""
        note = ""
        if self.pid and self._exited():
            status, _ = self._end()  # died while waiting for its next test: reaped and swept
            how = _death(status).removesuffix(" before reporting")
            note = f"ResourceWarning: a test process ended between tests ({how})"
        if not self.pid:
            failed = self._start(item)  # a new process starts with this test: no id to send
            if failed:
                return result(item.nodeid, "crashed", 0.0, failed)
        else:
            with contextlib.suppress(OSError):  # a process that died meanwhile is seen below
                os.write(self.ids_w, item.nodeid.encode() + b"\n")
        start = time.monotonic()
        rec = self._await(item.nodeid, start)
        if note:
            rec["warnings"] = [*(rec["warnings"] if isinstance(rec.get("warnings"), list) else []), note]
        return rec

    def close(self) -> None:
        """No more tests: the process leaves on end of input; reaped and swept."""
        if self.pid:
            if self.ids_w >= 0:
                os.close(self.ids_w)
                self.ids_w = -1
            self._end(time.monotonic() + 1.0)

    def _start(self, first: pytest.Item) -> str:
        """Fork the process, ``first`` its first test; a pipe for the ids of the next ones if it is to
        run more than one."""
        spawned = spawn(self.plugin, lambda res_w, ids_r: self._serve(res_w, ids_r, first), ids=self.per_process > 1)
        if isinstance(spawned, str):
            return spawned
        self.pid, self.ids_w, self.res_r, self.out_r = spawned.pid, spawned.ids_w, spawned.res_r, spawned.out_r
        self.pidfd = procs.exit_fd(self.pid)
        self.sel = selectors.DefaultSelector()
        for fd in (self.pidfd, self.res_r, self.out_r):
            self.sel.register(fd, selectors.EVENT_READ)
        self.buf = bytearray()
        return ""

    def _exited(self) -> bool:
        assert self.sel is not None
        return any(key.fd == self.pidfd for key, _ in self.sel.select(0))

    def _await(self, nodeid: str, start: float) -> dict:
        """The test's record: its line on the report pipe, or why there is none."""
        assert self.sel is not None
        timeout = limit(self.config, nodeid, "test_timeout_s")
        deadline = start + timeout
        out_bytes, exited, timed_out = 0, False, False
        while b"\n" not in self.buf and not exited:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in self.sel.select(left):
                if key.fd == self.pidfd:
                    exited = True
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    self.sel.unregister(key.fd)
                elif key.fd == self.res_r:
                    if len(self.buf) < _MAX_REPORT:
                        self.buf += chunk
                else:
                    out_bytes += len(chunk)
        duration = time.monotonic() - start
        if timed_out:
            status, swept = self._end()
            rec = result(nodeid, "timeout", duration, f"killed at the {timeout:g} s test timeout")
            return _after(rec, status, swept, self.config)
        ended: tuple[int, procs.Sweep] | None = None
        if b"\n" not in self.buf:  # the process ended without a complete report
            ended = self._end()
            if b"\n" not in self.buf:  # and none came with its exit
                status, swept = ended
                return _after(result(nodeid, "crashed", duration, _death(status)), status, swept, self.config)
        line, _, self.buf = self.buf.partition(b"\n")
        rec = _parse(nodeid, line, duration)
        # A record of the worker's own making (an unreadable or foreign line) ends the process too.
        last = rec.pop("last", True) is not False or exited or ended is not None
        if not last and not self.buf.strip():
            return _after(self._capped(rec, out_bytes), 0, procs.Sweep(0, 0), self.config)
        status, swept = ended or self._end(deadline)  # an honest process leaves right after its last report
        if self.buf.strip():  # more than one line for one test
            rec = result(nodeid, "error", duration, "the test wrote to the result channel")
        return _after(self._capped(rec, out_bytes), status, swept, self.config)

    def _capped(self, rec: dict, out_bytes: int) -> dict:
        if out_bytes > int(self.config["max_output_kb"]) * 1024:
            rec["detail"] = short(f"{rec.get('detail', '')} (printed {out_bytes} bytes; output capped)")
        return rec

    def _end(self, wait_until: float | None = None) -> tuple[int, procs.Sweep]:
        """Reap the test process (killed unless it leaves by ``wait_until``), then sweep what it left."""
        assert self.sel is not None
        if wait_until is not None:
            while time.monotonic() < wait_until:
                if any(key.fd == self.pidfd for key, _ in self.sel.select(wait_until - time.monotonic())):
                    break
                with contextlib.suppress(OSError):  # drain: a full pipe must not keep it from leaving
                    for key, _ in self.sel.select(0):
                        chunk = os.read(key.fd, 65536)
                        if not chunk:
                            self.sel.unregister(key.fd)
                        elif key.fd == self.res_r and len(self.buf) < _MAX_REPORT:
                            self.buf += chunk
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        _, status = os.waitpid(self.pid, 0)
        swept = procs.kill_children()
        os.set_blocking(self.res_r, False)
        with contextlib.suppress(BlockingIOError, OSError):
            while len(self.buf) < _MAX_REPORT and (chunk := os.read(self.res_r, 65536)):
                self.buf += chunk
        self.sel.close()
        for fd in (self.ids_w, self.res_r, self.out_r, self.pidfd):
            if fd >= 0:
                os.close(fd)
        self.pid, self.sel = 0, None
        self.ids_w = self.res_r = self.out_r = self.pidfd = -1
        return status, swept

    # -- in the test process --------------------------------------------------------------------

    def _serve(self, res_w: int, ids_r: int, first: pytest.Item) -> None:
        procs.become_subreaper()  # what a test leaves behind is found among our children
        # The hard limit: the longest per-test timeout of the session's suites, for every test.
        own = (self.config.get("suite_limits") or {}).values()
        longest = max([float(self.config["test_timeout_s"]), *(float(v["test_timeout_s"]) for v in own)])
        hard = (int(longest) + 1) * self.per_process + 1
        inherited = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if inherited != resource.RLIM_INFINITY:
            hard = min(hard, inherited)
        more = self.per_process > 1
        # Where the next test would start: the directory, the environment (its bytes compared first).
        cwd, env, data = "", {}, {}
        if more:
            cwd, env, data = os.getcwd(), dict(os.environ), dict(getattr(os.environ, "_data", {}))

        def tests() -> Iterator[pytest.Item | None]:
            yield first
            lines = LineBuffer()
            while more and (chunk := os.read(ids_r, 65536)):
                for line in lines.feed(chunk):
                    yield self.items.get(line.decode())

        for done, item in enumerate(tests(), 1):
            if item is None:
                return
            used = sum(os.times()[:2])
            cpu = int(limit(self.config, item.nodeid, "test_timeout_s")) + 1
            # The CPU backstop of this test: its own budget on top of what the process has used.
            resource.setrlimit(resource.RLIMIT_CPU, (min(hard, int(used) + cpu), hard))
            rec = self.plugin._run_in_child(item)
            # A failed assertion leaves the process as a pass would (a canary, a wrong answer);
            # an error (a fixture's setup or teardown) or a crash (MemoryError) does not.
            clean = done < self.per_process and (
                rec["outcome"] in ("passed", "failed") and not rec["changed"] and not rec["exploits"]
                and not procs.has_children() and threading.active_count() == 1
                and len(os.listdir("/proc/self/task")) == 1 and os.getcwd() == cwd and _same_environ(env, data)
            )  # fmt: skip
            rec["last"] = not clean
            send(res_w, rec)
            if rec["last"]:
                return


def _same_environ(env: dict[str, str], data: dict[bytes, bytes]) -> bool:
    """Whether ``os.environ`` is as it was (``env``, and its bytes ``data``): the bytes compared in
    C when ``os.environ`` is still the standard mapping (17 us -> 1 us), else the decoded texts."""
    environ = os.environ
    if type(environ) is os._Environ and type(environ._data) is dict:  # type: ignore[attr-defined]
        return environ._data == data  # type: ignore[attr-defined]
    return environ == env


def _parse(nodeid: str, line: bytes, duration: float) -> dict:
    """A test process's report line, checked: one JSON record for ``nodeid``."""
    try:
        rec = loads(line)
    except ValueError:
        return result(nodeid, "error", duration, "unreadable report from the test process")
    if not isinstance(rec, dict) or rec.get("id") != nodeid:
        return result(nodeid, "error", duration, "the test wrote to the result channel")
    rec["duration_s"] = duration
    return rec


def _after(rec: dict, status: int, swept: procs.Sweep, config: dict) -> dict:
    """What the test process's end and the sweep after it add to a test's record."""
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
        # A failure's verdict reads only its crash line, the same in every style; the "line" style
        # builds no source excerpts and calls no repr() of every frame's arguments: a failing test
        # costs about what a passing one does instead of three times as much (docs/benchmarks.md).
        "--tb=line",
        "--capture=no", "-q", f"--basetemp=/tmp/bouts-pytest-{os.getpid()}", "--import-mode=prepend",
    ]  # fmt: skip


def main(
    config: dict, up_fd: int, cmd_fd: int, baseline: dict[str, str], clones: list[tuple[int, int]] | None = None
) -> int:
    """Entry point in a freshly forked worker; returns pytest's exit code (a clone's too: it
    returns here as its worker would). ``clones``: (up, cmd) channels of the clones to fork."""
    procs.become_subreaper()
    if config.get("track_seed"):  # a trusted reference run: may its tests have read the seed?
        seedwatch.install()
    fixtures = BoutsFixtures(config)
    plugin = WorkerPlugin(config, up_fd, cmd_fd, baseline, fixtures, clones)
    return run_pytest(pytest_args(config), [plugin, fixtures])


_PREPARED: list = []
"""The pytest configuration :func:`prepare` built in the supervisor; a worker forks with its own copy."""


def prepare(config: dict) -> None:
    """In the supervisor, before its baseline and before any worker forks: what every worker's
    ``pytest.main`` would do first and the same way, done once per session instead of once per
    worker (docs/sandbox.md, "A worker's start"): pytest's plugin manager with its built-in plugins imported
    and registered (``get_config``; ``-p no:`` read from the pinned arguments), and the modules pytest
    imports later in every run (``pdb`` when its debugging plugin is configured, ``readline`` when its
    capture plugin starts). Nothing of the workspace is read: command line, rootdir, conftest files
    and collection stay each worker's own (:func:`run_pytest`)."""
    import pdb  # noqa: F401

    from _pytest.config import get_config

    with contextlib.suppress(ImportError):
        import readline  # noqa: F401
    try:
        _PREPARED[:] = [get_config(pytest_args({**config, "files": []}))]
    except Exception:  # noqa: BLE001 - each worker's own pytest.main meets it again, and reports it
        _PREPARED.clear()


def run_pytest(args: list[str], plugins: list[object]) -> int:
    """``pytest.main(args, plugins=plugins)``, from the configuration :func:`prepare` built (once:
    this worker's copy) when there is one: ``pytest.main``'s own steps after ``get_config``."""
    if not _PREPARED:
        return int(pytest.main(args, plugins=plugins))
    from _pytest.config import ConftestImportFailure, ExitCode, print_conftest_import_error, print_usage_error

    prepared = _PREPARED.pop()
    before = os.environ.get("PYTEST_VERSION")
    os.environ["PYTEST_VERSION"] = pytest.__version__
    try:
        manager = prepared.pluginmanager
        try:
            for plugin in plugins:
                manager.register(plugin)
            parsed = manager.hook.pytest_cmdline_parse(pluginmanager=manager, args=args)
            # Read while parsing (third-party plugins stay off); a plain run has no such variable.
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        except ConftestImportFailure as exc:
            print_conftest_import_error(exc, file=sys.stderr)
            return int(ExitCode.USAGE_ERROR)
        except BaseException:
            prepared._ensure_unconfigure()
            raise
        try:
            return int(parsed.hook.pytest_cmdline_main(config=parsed))
        finally:
            parsed._ensure_unconfigure()
    except pytest.UsageError as exc:
        print_usage_error(exc, file=sys.stderr)
        return int(ExitCode.USAGE_ERROR)
    finally:
        if before is None:
            os.environ.pop("PYTEST_VERSION", None)
        else:
            os.environ["PYTEST_VERSION"] = before
