"""The pure parts of the runner: the result channel's parser and the verdict assembly."""

from __future__ import annotations

import fcntl
import os
import threading

from bouts.models.results import Outcome
from bouts.runner import _supervise
from bouts.runner._channel import MAX_LINE, LineReader, Record, parse_record
from bouts.runner._verdicts import RunEnd, assemble

FILES = {"tests/visible/test_a.py": "visible", "tests/adversarial/test_b.py": "adversarial"}
CLEAN = RunEnd(timed_out=False, exit_code=0, signal=None)


def run(records: list[Record], *, expected=None, end: RunEnd = CLEAN):  # noqa: ANN001, ANN202
    return assemble(records, file_suite=FILES, expected_ids=expected, end=end, severity_of=lambda _: "high")


def result(node: str, outcome: Outcome, detail: str = "") -> Record:
    return Record("result", id=node, outcome=outcome, detail=detail)


def test_parse_record_rejects_garbage_and_forged_outcomes() -> None:
    assert parse_record(b"not json").kind == "invalid"
    assert parse_record(b"[1]").kind == "invalid"
    assert parse_record(b'{"type": "result", "id": "x", "outcome": "missing"}').kind == "invalid"
    assert parse_record(b'{"type": "result", "id": 3, "outcome": "passed"}').kind == "invalid"
    rec = parse_record(b'{"type": "result", "id": "t::a", "outcome": "passed", "duration_s": 0.5}')
    assert (rec.kind, rec.id, rec.outcome, rec.duration_s) == ("result", "t::a", Outcome.PASSED, 0.5)


def test_line_reader_drops_oversized_lines_without_buffering_them() -> None:
    r, w = os.pipe()
    reader = LineReader(r)
    chunk = b"x" * 65536
    lines: list[bytes] = []
    for _ in range(MAX_LINE // len(chunk) + 2):
        os.write(w, chunk)
        lines += reader.feed() or []
    os.write(w, b'\n{"type":"hello"}\n')
    lines += reader.feed() or []
    os.close(w)
    assert lines == [b'{"type":"hello"}'] and reader.oversized == 1
    assert reader.feed() is None
    os.close(r)


def test_collected_but_unreported_ids_crash_and_expected_ids_go_missing() -> None:
    records = [
        Record("hello"),
        Record("collected", ids=("tests/visible/test_a.py::t1", "tests/visible/test_a.py::t2")),
        result("tests/visible/test_a.py::t1", Outcome.PASSED),
    ]
    results, stability = run(records, expected=["tests/visible/test_a.py::t1", "tests/visible/test_a.py::t3"])
    got = {r.id: r.outcome for r in results}
    assert got == {
        "tests/visible/test_a.py::t1": Outcome.PASSED,
        "tests/visible/test_a.py::t3": Outcome.MISSING,
    }  # t2 is not in the reference suite: a submission cannot add tests
    assert any("before the suite finished" in c for c in stability.crashes)
    results, _ = run(records)
    assert {r.id: r.outcome for r in results}["tests/visible/test_a.py::t2"] is Outcome.CRASHED


def test_suite_timeout_turns_unreported_ids_into_timeouts() -> None:
    records = [Record("collected", ids=("tests/visible/test_a.py::t1",))]
    results, stability = run(records, end=RunEnd(timed_out=True, exit_code=None, signal=9))
    assert [r.outcome for r in results] == [Outcome.TIMEOUT]
    assert any("wall timeout" in c for c in stability.crashes)


def test_first_report_stands_and_unknown_files_are_ignored() -> None:
    records = [
        Record("collected", ids=("tests/visible/test_a.py::t1",)),
        result("tests/visible/test_a.py::t1", Outcome.FAILED),
        result("tests/visible/test_a.py::t1", Outcome.PASSED),
        result("elsewhere/test_x.py::t", Outcome.PASSED),
        Record("done", exit_code=0),
    ]
    results, stability = run(records)
    assert [(r.id, r.outcome) for r in results] == [("tests/visible/test_a.py::t1", Outcome.FAILED)]
    assert stability.crashes == []


def test_collection_never_finishing_errors_every_file() -> None:
    results, _ = run([Record("hello")], end=RunEnd(timed_out=False, exit_code=0, signal=None))
    assert {r.id: r.outcome for r in results} == {f: Outcome.ERROR for f in FILES}


def test_collect_error_covers_the_expected_ids_of_its_file_and_severity_is_set() -> None:
    records = [
        Record("collect_error", id="tests/adversarial/test_b.py", detail="ImportError"),
        Record("collected", ids=()),
        Record("done", exit_code=1),
    ]
    results, _ = run(records, expected=["tests/adversarial/test_b.py::t"])
    assert {(r.id, r.outcome, r.severity) for r in results} == {
        ("tests/adversarial/test_b.py", Outcome.ERROR, "high"),
        ("tests/adversarial/test_b.py::t", Outcome.ERROR, "high"),
    }


def test_bad_exit_after_the_suite_is_a_stability_crash() -> None:
    records = [Record("collected", ids=()), Record("done", exit_code=0)]
    _, stability = run(records, end=RunEnd(timed_out=False, exit_code=3, signal=None))
    assert stability.crashes == ["bad exit: the test run exited with code 3 after the suite"]


def test_line_reader_says_whether_a_record_is_still_arriving() -> None:
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1 << 20)  # room for more than one read's worth
    reader = LineReader(r)
    os.write(w, b'{"type":"hel')
    assert reader.feed() == [] and not reader.between_lines  # the rest of the line is on its way
    os.write(w, b'lo"}\n')
    assert reader.feed() == [b'{"type":"hello"}'] and reader.between_lines
    os.write(w, (b"y" * 99 + b"\n") * 700)  # 70,000 bytes: the read fills its buffer, more is waiting
    assert len(reader.feed() or []) == 655 and not reader.between_lines
    assert len(reader.feed() or []) == 45 and reader.between_lines
    os.close(w)
    assert reader.feed() is None
    os.close(r)


def test_the_pausing_reader_gets_every_record_whole_and_in_order() -> None:
    """Records of every size, some larger than a pipe, written while the reader pauses between
    records: each arrives whole, in order, and none after the writer is gone is lost."""
    r, w = os.pipe()
    sizes = [10, 5_000, 3 * 1024 * 1024, 1, 70_000, 200, 2 * 1024 * 1024, 64 * 1024 - 1]
    lines = [str(i).encode() + b":" + b"z" * n for i, n in enumerate(sizes)]

    def write() -> None:
        for line in lines:
            data = line + b"\n"
            while data:
                data = data[os.write(w, data) :]
        os.close(w)  # the writer is gone: what it wrote is still in the pipe

    writer = threading.Thread(target=write)
    writer.start()
    got, oversized = _supervise._read(r, writer, lambda line: line)
    writer.join()
    assert got == lines and oversized == 0
