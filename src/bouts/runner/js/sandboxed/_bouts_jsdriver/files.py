"""vitest and jest: one process per test file, restarted past a test that hung or crashed.

Starting vitest or jest costs ~0.5 s, so a process per test (as for ``node:test``) would make a
suite of 50 tests take minutes. Instead each file runs in one process, under a
:class:`~_bouts_jsdriver.child.Watchdog` that kills it when a test overruns the per-test
timeout; the test that was running is then ``timeout`` (or ``crashed`` when the process died
under it, e.g. ``process.exit``), and the file is started again with a name pattern that
excludes every test already reported. A restart that reports nothing new ends the file: its
unreported tests stay ``missing`` on the host. The cost of the speed: tests of one file share a
process (module state, the event loop), as they do under the frameworks themselves.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from _bouts_driver.proto import BODY, result, short

from _bouts_jsdriver.child import ChildRun, Watchdog, run_child
from _bouts_jsdriver.supervisor import _OBS_FIELDS, _warnings, _why_no_end, node_flags

if TYPE_CHECKING:
    from _bouts_jsdriver.supervisor import Supervisor

_JS_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")
_STARTUP_S = 20.0
"""Allowance for starting the framework and importing the test file, on top of the per-test timeout."""
_SLACK_S = 2.0
"""The framework's own per-test timeout fires first and reports; this catches a blocked event loop."""


def exclusion_pattern(names: list[str]) -> str | None:
    """A JS regex matching every test except ``names`` (full names, ``suite > test``).

    vitest and jest match ``--testNamePattern`` against the suite and test names joined by spaces.
    """
    if not names:
        return None
    alts = "|".join(_JS_SPECIAL.sub(lambda m: "\\" + m.group(0), n.replace(" > ", " ")) for n in names)
    return f"^(?!(?:{alts})$)"


class FileRunner:
    """Runs every file of a vitest or jest suite and forwards one record per test to the host."""

    def __init__(self, sup: Supervisor) -> None:
        self.sup = sup
        self.config = sup.config
        self.lock = threading.Lock()
        self.collected: list[str] = []

    def run(self, files: list[str], workers: int) -> None:
        order = list(files)
        random.SystemRandom().shuffle(order)
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(self.run_file, order))
        self.sup.emit({"type": "collected", "ids": list(dict.fromkeys(self.collected))})

    def argv(self, file: str, pattern: str | None) -> list[str]:
        lib, test_s = self.config["jslib"], float(self.config["test_timeout_s"])
        entry = "vitest-run.mjs" if self.config["framework"] == "vitest" else "jest-run.mjs"
        spec = {
            "deps": self.config["deps"], "workspace": self.config["workspace"], "file": file,
            "path": os.path.join(self.config["workspace"], file), "pattern": pattern,
            "test_timeout_ms": int(test_s * 1000), "heap_mb": self.sup.heap_mb,
        }  # fmt: skip
        return [self.config["node"], *node_flags(self.sup.heap_mb), f"{lib}/{entry}", json.dumps(spec)]

    def child(self, file: str, pattern: str | None, budget_s: float) -> ChildRun:
        test_s = float(self.config["test_timeout_s"])
        dog = Watchdog(test_s=test_s + _SLACK_S, quiet_s=test_s + _SLACK_S, startup_s=test_s + _STARTUP_S)
        return run_child(
            self.argv(file, pattern), env=self.sup.env, cwd=self.config["workspace"], timeout_s=budget_s,
            cap=int(self.config["max_output_kb"]) * 1024, nonce=secrets.token_hex(16),
            done=lambda records: any(r.get("type") == "end" for r in records), watchdog=dog,
        )  # fmt: skip

    def run_file(self, file: str) -> None:
        suite = self.config["suite_of"].get(file, "")
        budget = float(self.config["suite_timeout_s"])
        done: dict[str, str] = {}  # name -> outcome already forwarded
        names: list[str] = []
        hidden = file in self.config["hidden_files"]  # their failure details: the error's name only
        attempt = 0
        while True:
            left = budget - self.sup.spent.get(suite, 0.0)
            if left <= 0:
                for name in names:
                    if name not in done:
                        done[name] = "timeout"
                        self._emit(file, name, result(f"{file}::{name}", "timeout", 0.0, "suite time budget exhausted"))
                break
            run = self.child(file, exclusion_pattern(list(done)), left)
            with self.sup.lock:
                self.sup.spent[suite] = self.sup.spent.get(suite, 0.0) + run.duration_s
            self.sup._violations(run, f"running {file}")
            new = 0
            file_error: dict | None = None
            observations = _observations_by_test(run.records) if self.config.get("observe") else None
            for rec in run.records:
                kind = rec.get("type")
                if kind == "collected" and isinstance(rec.get("names"), list):
                    names.extend(n for n in rec["names"] if isinstance(n, str) and n not in names)
                elif kind == "result" and isinstance(rec.get("id"), str) and rec["id"] not in done:
                    name = rec["id"]
                    out = self.sup.verdict(f"{file}::{name}", rec, 0.0)
                    if observations is not None:
                        # The host decides the test from these (docs/javascript.md, "Decided on the host").
                        out[BODY] = json.dumps(observations.get(name, []), separators=(",", ":")).encode()
                    done[name] = out["outcome"]
                    new += 1
                    self._emit(file, name, out)
                elif kind == "file_error" and file_error is None:
                    file_error = rec
                elif kind == "warning" and rec.get("text"):
                    self.sup.emit({"type": "warning", "id": file, "text": short(str(rec["text"]))[:300]})
                elif kind == "uncaught":
                    text = f"uncaught exception in {file}: {rec.get('text')}"
                    self.sup.emit({"type": "crash", "detail": short(text)})
            for text in _warnings(run.stderr):
                self.sup.emit({"type": "warning", "id": file, "text": text})
            ended = any(r.get("type") == "end" for r in run.records)
            running = run.running if not ended else None
            if running is not None and running not in done:
                node = f"{file}::{running}"
                if run.timed_out:
                    limit = float(self.config["test_timeout_s"])
                    out = result(node, "timeout", 0.0, f"killed at the {limit:g} s per-test timeout")
                else:
                    why = "the process died during the test" if hidden else _why_no_end(run)
                    out = result(node, "crashed", 0.0, why)
                done[running] = out["outcome"]
                new += 1
                self._emit(file, running, out)
            if attempt == 0 and not done and (file_error is not None or not ended):
                # Nothing ran: the file itself failed (syntax error, exit or hang at import).
                why = str(file_error.get("detail") or "") if file_error is not None else _why_no_end(run)
                if hidden:
                    why = str(file_error.get("error_name") or "Error") if file_error is not None else "no test ran"
                self.sup.emit({"type": "collect_error", "id": file, "detail": short(why)})
                return
            if file_error is not None:
                self.sup.emit({"type": "warning", "id": file, "text": short(f"error in {file} outside its tests: "
                               f"{file_error.get('error_name') or 'Error'}")[:300]})  # fmt: skip
            if ended:
                break
            if new == 0:
                why = f"{file}: {_why_no_end(run)}; restarting it made no progress"
                self.sup.emit({"type": "crash", "detail": short(why)})
                break
            attempt += 1
        with self.lock:  # collected but never reported: crashed on the host, never silently gone
            self.collected.extend(f"{file}::{n}" for n in names)

    def _emit(self, file: str, name: str, out: dict) -> None:
        with self.lock:
            self.collected.append(f"{file}::{name}")
        self.sup.emit(out)


def _observations_by_test(records: list[dict]) -> dict[str, list[list[object]]]:
    """Each test's observations, in order: those after a ``begin`` marker (written by the runner's
    half in the test process as the test starts) up to the next one. Observations before any
    marker (a ``beforeAll``, the file's top level) belong to no test."""
    out: dict[str, list[list[object]]] = {}
    current: list[list[object]] | None = None
    for rec in records:
        if rec.get("type") != "obs":
            continue
        if "begin" in rec:
            name = rec["begin"]
            current = out.setdefault(name, []) if isinstance(name, str) else None
            continue
        what = next((f for f in _OBS_FIELDS if f in rec), None)
        if current is not None and what is not None:
            current.append([rec.get("site"), what, rec.get(what)])
    return out
