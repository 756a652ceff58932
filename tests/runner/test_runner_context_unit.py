"""The driver's attribution of introspection (``_bouts_driver.context``): the submission's own
frame walks, heap walks, ``/proc`` reads and reads of a grader's variable are evidence; what the
standard library does for itself when the submission calls it (``logging`` finding its caller,
``namedtuple``, ``typing``, ``enum``, formatting a caught exception) is not.

Benign code only, run in a child interpreter (an audit hook cannot be removed from the process
that installs it), with the driver's hook as the supervisor installs it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from bouts.runner._run import DRIVER_LIB

HONEST = '''
import collections, dataclasses, enum, inspect, io, logging, os, sys, traceback, typing, warnings

def run():
    logging.basicConfig(stream=io.StringIO())
    log = logging.getLogger("honest")
    log.warning("a message with its caller looked up")
    Point = collections.namedtuple("Point", "x y")
    class Pair(typing.NamedTuple):
        a: int
        b: int
    Colour = enum.Enum("Colour", "RED GREEN")
    @dataclasses.dataclass
    class Row:
        sku: str
    try:
        raise ValueError("boom")
    except ValueError:
        traceback.format_exc()
        log.exception("formatted")
        traceback.TracebackException(*sys.exc_info()).format()
    warnings.warn("careful", stacklevel=2)
    inspect.signature(run)
    os.environ.get("HOME"), os.getenv("LANG"), "PATH" in os.environ
    dict(os.environ), os.environ.copy(), {**os.environ}, list(os.environ.items()), repr(os.environ)
    return Point(1, 2), Pair(1, 2), Colour.RED, Row("A")
'''

SNIFFING = {
    "sys._getframe": "sys._getframe(1)",
    "inspect.stack": "inspect.stack()",
    "inspect.currentframe": "inspect.currentframe()",
    "traceback.extract_stack": "traceback.extract_stack()",
    "getattr-spelled _getframe": "getattr(sys, '_get' + 'frame')(0)",
    "tb_frame": "(lambda e: e.__traceback__.tb_frame)(_caught())",
    "traceback.walk_tb": "[f for f, _ in traceback.walk_tb(_caught().__traceback__)]",
    "gi_frame": "(x for x in ()).gi_frame",
    "sys._current_frames": "sys._current_frames()",
    "gc.get_objects": "gc.get_objects()",
    "gc.get_referrers": "gc.get_referrers(sys)",
    "sys.settrace": "sys.settrace(None)",
    "/proc/self/cmdline": "open('/proc/self/cmdline', 'rb').read()",
    "PYTEST_CURRENT_TEST": "os.environ.get('PYTEST_CURRENT_TEST')",
    "BOUTS_SEED in": "'BOUTS_SEED' in os.environ",
    "os.getenv of a marker": "os.getenv('PYTEST_VERSION')",
    "a signal handler's frame": (
        "signal.signal(signal.SIGUSR1, lambda n, f: f.f_code.co_name); os.kill(os.getpid(), signal.SIGUSR1)"
    ),
    "compiled under a library's name": (
        "exec(compile('import sys; sys._getframe()', inspect.getfile(logging), 'exec'), {})"
    ),
}

_CHILD = '''
import importlib, json, os, sys
os.environ.update(BOUTS_SEED="7", PYTEST_VERSION="8")  # as in a graded run
sys.path.insert(0, {lib!r})
from _bouts_driver import context, exploits
exploits.install()
context.watch({ws!r})
sys.path.append({ws!r})
out = {{}}
for name in {names!r}:
    mod = importlib.import_module(name)
    exploits.take()
    mod.run()
    out[name] = [a["evidence"] for a in exploits.take() if a["kind"] == "grader_detection"]
print(json.dumps(out))
'''


def _evidence(tmp_path: Path, modules: dict[str, str]) -> dict[str, list[str]]:
    ws = tmp_path / "workspace"
    (ws / "tests").mkdir(parents=True)
    for name, text in modules.items():
        (ws / f"{name}.py").write_text(text)
    child = _CHILD.format(lib=str(DRIVER_LIB), ws=str(ws), names=sorted(modules))
    done = subprocess.run([sys.executable, "-I", "-c", child], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_what_the_standard_library_does_for_the_submission_is_not_its_introspection(tmp_path: Path) -> None:
    assert _evidence(tmp_path, {"honest": HONEST}) == {"honest": []}


def test_the_submissions_own_introspection_is_seen_with_where(tmp_path: Path) -> None:
    modules = {
        f"sniff_{i}": textwrap.dedent(f'''
            import gc, inspect, logging, os, signal, sys, traceback

            def _caught():
                try:
                    raise LookupError
                except LookupError as e:
                    return e

            def run():
                {code}
            ''')
        for i, code in enumerate(SNIFFING.values())
    }
    found = _evidence(tmp_path, modules)
    missed = [name for i, name in enumerate(SNIFFING) if not found[f"sniff_{i}"]]
    assert not missed, (missed, found)
    assert all(f"sniff_{i}.py:" in found[f"sniff_{i}"][0] for i in range(len(SNIFFING)) if i != 17), found


def test_the_challenges_tests_are_not_the_submission(tmp_path: Path) -> None:
    ws = tmp_path / "workspace"
    (ws / "tests").mkdir(parents=True)
    (ws / "tests" / "walker.py").write_text("import sys\ndef run():\n    sys._getframe(1)\n")
    child = _CHILD.format(lib=str(DRIVER_LIB), ws=str(ws), names=["walker"]).replace(
        f"sys.path.append({str(ws)!r})", f"sys.path.append({str(ws / 'tests')!r})")  # fmt: skip
    done = subprocess.run([sys.executable, "-I", "-c", child], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == {"walker": []}


def test_the_tests_during_which_the_code_looked_do_not_pass() -> None:
    from bouts.models.results import Outcome, TestResult
    from bouts.runner._channel import Record
    from bouts.runner._integrity import looked, unlooked

    results = [TestResult(id=f"t.py::{n}", suite="hidden", outcome=Outcome.PASSED) for n in "abc"]
    seen = looked([Record("result", id="t.py::a", exploits=(("grader_detection", "sys._getframe in x.py:1"),)),
                   Record("result", id="t.py::b", exploits=(("network", "connect to 1.1.1.1:53"),))])  # fmt: skip
    assert seen == {"t.py::a"}
    assert [r.outcome for r in unlooked(results, seen)] == [Outcome.FAILED, Outcome.PASSED, Outcome.PASSED]
    # Looking while the modules were imported decides for every test.
    at_import = looked([Record("exploit", id="importing the tests and code",
                               exploits=(("grader_detection", "os.environ read"),))])  # fmt: skip
    assert at_import is None
    assert all(r.outcome is Outcome.FAILED for r in unlooked(results, at_import))
    assert looked([Record("result", id="t.py::a")]) == frozenset()
