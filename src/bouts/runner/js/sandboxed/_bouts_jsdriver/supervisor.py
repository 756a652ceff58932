"""The trusted supervisor of a JavaScript test run: the one process holding the host's channel.

It never runs submission code. It is not dumpable (the node processes share its uid and could
otherwise open its descriptors through ``/proc``), reads the run's nonce from a pipe (not argv:
``/proc/*/cmdline`` is world-readable), watches the grader-owned files of the workspace
(``guard.py``) from before the first node process, then, for ``node:test``:

1. collects each test file in its own node process with a name pattern that matches nothing
   (node:test reports every test as skipped without running its body: the names, no outcomes);
2. runs every test in its own node process (``--test-name-pattern`` for that one name), in a
   random order, ``workers`` at a time, each with a fresh nonce and a wall timeout enforced here;

and for vitest and jest (``files.py``) runs each file in one process, killing it when a test
overruns and starting it again without the tests already reported. Either way it forwards one
vetted record per test: the result must carry the process's nonce and answer an id it asked
for; anything else is a violation. Why: docs/javascript.md.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from _bouts_driver import procs
from _bouts_driver.proto import BODY, result, send, short

from _bouts_jsdriver.child import ChildRun, run_child
from _bouts_jsdriver.guard import Guard

NEVER = "^(?!)$"
"""A name pattern no test matches: collection runs no test body."""
_WARNING = re.compile(rb"\(node:\d+\) (?:\[(\w+)\] )?(\w*Warning): ([^\n]{0,300})")
_OOM = (b"heap out of memory", b"Fatal process OOM", b"Reached heap limit", b"Allocation failed")
_JS_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")


def node_flags(heap_mb: int) -> list[str]:
    """Flags of every node process: a heap below the address-space cap, two V8 worker threads, and
    WebAssembly without its 8 GB guard reservation (vite's lexer is Wasm; RLIMIT_AS refuses it)."""
    return [f"--max-old-space-size={heap_mb}", "--v8-pool-size=2", "--disable-wasm-trap-handler"]


def name_pattern(name: str) -> str:
    """An anchored JS regex matching exactly the leaf test name (node matches leaf names)."""
    return "^" + _JS_SPECIAL.sub(lambda m: "\\" + m.group(0), name) + "$"


class Supervisor:
    def __init__(self, config: dict, host: int, nonce: str, guard: Guard | None = None) -> None:
        self.config, self.host, self.nonce, self.guard = config, host, nonce, guard
        self.lock = threading.Lock()
        self.spent: dict[str, float] = {}
        lib = config["jslib"]
        self.heap_mb = max(64, int(config["memory_mb"]) // 2)
        tsx = [f"--import=file://{config['tsx']}"] if config.get("tsx") else []
        self.base_argv = [
            config["node"], *node_flags(self.heap_mb), f"--import=file://{lib}/preload.mjs", *tsx, f"--test-reporter=file://{lib}/reporter.mjs",
            "--test-reporter-destination=stdout",
        ]  # fmt: skip
        self.env = {
            "PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            # The sandbox has no /etc/ssl: without this node refuses to start (EACCES on openssl.cnf).
            "OPENSSL_CONF": "/dev/null",
            # Fewer threads per process (RLIMIT_NPROC counts threads; vitest runs two node processes
            # and esbuild) and two malloc arenas, not eight per core: every arena reserves 64 MB of
            # the address space RLIMIT_AS caps (a native module's threads otherwise exhaust it).
            "UV_THREADPOOL_SIZE": "2", "GOMAXPROCS": "2", "MALLOC_ARENA_MAX": "2",
        }  # fmt: skip
        # As a plain run of the code would have it: no NODE_ENV (vitest and jest set their own), and
        # BOUTS_SEED only for a test file that reads it in a form the host did not write in as text.
        if config.get("seed_env", True):
            self.env["BOUTS_SEED"] = str(config["seed"])
        if config.get("observe"):
            # "1": the runtime also runs each original assertion (a reference's golden run, or a run
            # without a reference); "0": it only observes (a graded run decided on the host).
            self.env["BOUTS_JS_OBSERVE"] = "1" if config.get("check") else "0"

    def emit(self, record: dict) -> None:
        with self.lock:
            send(self.host, {**record, "nonce": self.nonce})

    def child(self, file: str, pattern: str, timeout_s: float, want: str | None) -> ChildRun:
        def done(records: list[dict]) -> bool:
            return any(r.get("type") == "end" or (want is not None and r.get("id") == want) for r in records)

        return run_child(
            [*self.base_argv, f"--test-name-pattern={pattern}", os.path.join(self.config["workspace"], file)],
            env=self.env, cwd=self.config["workspace"], timeout_s=timeout_s,
            cap=int(self.config["max_output_kb"]) * 1024, nonce=secrets.token_hex(16), done=done,
        )  # fmt: skip

    def collect(self, file: str) -> list[str]:
        run = self.child(file, NEVER, float(self.config["test_timeout_s"]) + 10.0, None)
        self._violations(run, f"collecting {file}")
        names = [r["id"] for r in run.records if r.get("type") == "result" and isinstance(r.get("id"), str)]
        if not any(r.get("type") == "end" for r in run.records):
            self.emit({"type": "collect_error", "id": file, "detail": _why_no_end(run)})
            return []
        for text in _warnings(run.stderr):
            self.emit({"type": "warning", "id": file, "text": text})
        return [f"{file}::{n}" for n in dict.fromkeys(names)]

    def run_test(self, nodeid: str) -> None:
        file, name = nodeid.split("::", 1)
        suite = self.config["suite_of"].get(file, "")
        if self.spent.get(suite, 0.0) >= float(self.config["suite_timeout_s"]):
            self.emit(result(nodeid, "timeout", 0.0, "suite time budget exhausted"))
            return
        timeout = float(self.config["test_timeout_s"])
        run = self.child(file, name_pattern(name.split(" > ")[-1]), timeout, name)
        with self.lock:
            self.spent[suite] = self.spent.get(suite, 0.0) + run.duration_s
        self._violations(run, nodeid)
        rec = next((r for r in run.records if r.get("type") == "result" and r.get("id") == name), None)
        warnings = _warnings(run.stderr) + [
            str(r.get("text"))[:300] for r in run.records if r.get("type") == "warning" and r.get("text")
        ]
        if run.timed_out and rec is None:
            out = result(nodeid, "timeout", run.duration_s, f"killed at the {timeout:g} s per-test timeout")
        elif rec is None:
            out = result(nodeid, "crashed", run.duration_s, _why_no_end(run))
        else:
            out = self.verdict(nodeid, rec, run.duration_s)
            if rec.get("failure") == "unhandledRejection":
                warnings.append("UnhandledPromiseRejection: a promise rejection was never handled")
            if rec.get("failure") == "uncaughtException":
                self.emit({"type": "crash", "detail": f"uncaught exception in {nodeid}"})
            if out["outcome"] == "passed" and (run.exit_code not in (0, None) or run.signal is not None):
                self.emit({"type": "crash", "detail": f"{nodeid}: the process {_ending(run)} after its test passed"})
        out["warnings"] = warnings[:50]
        if self.config.get("observe"):
            # Every observation the process wrote, in order: the host decides the test from these
            # (docs/javascript.md, "Decided on the host"); a record without them never passes.
            out[BODY] = json.dumps(_observations(run.records), separators=(",", ":")).encode()
        self.emit(out)

    def verdict(self, nodeid: str, rec: dict, duration_s: float) -> dict:
        """The host record for a child's result record (untrusted input: every field checked)."""
        outcome = rec.get("outcome") if rec.get("outcome") in ("passed", "failed", "error", "timeout") else "error"
        detail = str(rec.get("detail") or "")
        if nodeid.split("::", 1)[0] in self.config["hidden_files"] and outcome != "passed":
            detail = str(rec.get("error_name") or "Error")  # hidden tests: the exception type only
        out = result(nodeid, outcome, _seconds(rec.get("duration_s"), duration_s), short(detail))
        changed = rec.get("changed")
        out["changed"] = [str(c) for c in changed[:20]] if isinstance(changed, list) else ["no fingerprint"]
        digests = rec.get("observations")
        out["observations"] = [str(d)[:128] for d in digests[:10_000]] if isinstance(digests, list) else []
        return out

    def _violations(self, run: ChildRun, what: str) -> None:
        if run.forged:
            self.emit({"type": "violation", "detail": f"forged: {run.forged} record(s) without the process's nonce "
                       f"on the result channel while {what}"})  # fmt: skip
        for rec in run.records:
            if rec.get("type") == "violation":
                self.emit({"type": "violation", "detail": short(str(rec.get("detail") or "violation"))})
        self.check_guard(what)

    def check_guard(self, what: str, changed: list[str] | None = None) -> None:
        """Report grader-owned files changed since the last check (docstring of ``guard.py``)."""
        if changed is None:
            changed = self.guard.take() if self.guard is not None else []
        if changed:
            self.emit({"type": "violation", "detail": short(f"tampered: grader-owned files changed during the run "
                       f"(noticed after {what}): {', '.join(changed[:10])}")})  # fmt: skip

    def run(self) -> None:
        files: list[str] = self.config["files"]
        workers = max(1, int(self.config["workers"]))
        if self.config.get("framework", "node:test") != "node:test":
            from _bouts_jsdriver.files import FileRunner

            FileRunner(self).run(files, workers)
        else:
            with ThreadPoolExecutor(workers) as pool:
                collected = [i for ids in pool.map(self.collect, files) for i in ids]
                self.emit({"type": "collected", "ids": collected})
                order = list(collected)
                random.SystemRandom().shuffle(order)  # canaries hide among real tests
                list(pool.map(self.run_test, order))
        procs.kill_children()


_OBS_FIELDS = ("v", "raise", "threw", "returned", "end", "overflow")


def _observations(records: list[dict]) -> list[list[object]]:
    out: list[list[object]] = []
    for rec in records:
        if rec.get("type") != "obs":
            continue
        what = next((f for f in _OBS_FIELDS if f in rec), None)
        if what is None:
            continue
        out.append([rec.get("site"), what, rec.get(what)])
    return out


def _seconds(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) and 0 <= value < 1e6 else default


def _warnings(stderr: bytes) -> list[str]:
    found = []
    for m in _WARNING.finditer(stderr):
        code, kind, text = (g.decode(errors="replace") if g else "" for g in m.groups())
        found.append(f"{kind}: {f'[{code}] ' if code else ''}{text}"[:300])
    return list(dict.fromkeys(found))


def _ending(run: ChildRun) -> str:
    if run.signal is not None:
        try:
            return f"was killed by {signal.Signals(run.signal).name}"
        except ValueError:
            return f"was killed by signal {run.signal}"
    return f"exited with code {run.exit_code}"


def _why_no_end(run: ChildRun) -> str:
    if run.timed_out:
        return "timed out before reporting"
    if any(marker in run.stderr for marker in _OOM):
        return f"out of memory (the process {_ending(run)})"
    lines = [ln for ln in run.stderr.decode(errors="replace").splitlines() if ln.strip()]
    error = next((ln for ln in lines if re.match(r"^\w*(Error|Exception)\b", ln)), lines[-1] if lines else "")
    return short(f"the process {_ending(run)} before reporting" + (f": {error}" if error else ""))


def main() -> int:
    config = json.loads(sys.argv[1])
    host = int(config["result_fd"])
    procs.make_private()
    procs.become_subreaper()
    with os.fdopen(int(config["nonce_fd"]), "rb") as fh:
        nonce = fh.read(256).decode().strip()
    send(host, {"type": "hello", "pid": os.getpid(), "nonce": nonce})
    try:
        guard: Guard | None = Guard(config["workspace"])  # before the first node process: nothing may change
    except OSError as exc:  # no inotify here: the run goes on, unguarded, and says so
        guard = None
        send(host, {"type": "warning", "id": "", "text": f"workspace guard unavailable: {exc}"[:300], "nonce": nonce})
    supervisor = Supervisor(config, host, nonce, guard)
    supervisor.run()
    if guard is not None:
        supervisor.check_guard("the last test process", guard.close())
    send(host, {"type": "done", "exit": 0, "nonce": nonce})
    return 0
