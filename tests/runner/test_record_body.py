"""A result's observations travel as its *body* (``proto.BODY``): the hops between the test process
and the host forward them unparsed, and only the host reads them, from the body alone."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bouts.runner._channel import RS, parse_record

PROTO = Path(__file__).parents[2] / "src/bouts/runner/sandboxed/_bouts_driver/proto.py"
_spec = importlib.util.spec_from_file_location("bouts_proto_under_test", PROTO)
proto = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(proto)  # type: ignore[union-attr]

OBS = [[7, {"0": '{"$o":["m.Movement"],"a":null,"?":true}'}, 3], [8, {"0": "5", "1": '"x\\ny"'}]]


def _wire(record: dict) -> bytes:
    r, w = os.pipe()
    proto.send(w, record)
    os.close(w)
    data = os.read(r, 1 << 20)
    os.close(r)
    return data


def test_a_body_crosses_every_hop_as_the_test_process_wrote_it() -> None:
    body = json.dumps(OBS, separators=(",", ":")).encode()
    line = _wire({"type": "result", "id": "t::a", "outcome": "passed", proto.BODY: body})
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    for _hop in ("worker", "supervisor"):  # each parses the header, adds to it, sends it on
        rec = proto.loads(line.rstrip(b"\n"))
        assert rec[proto.BODY] == body and "obs" not in rec
        rec["duration_s"] = 0.25
        line = _wire(rec)
    got = parse_record(line.rstrip(b"\n"))
    assert (got.kind, got.id, got.duration_s, got.has_obs) == ("result", "t::a", 0.25, True)
    assert list(got.occurrences) == OBS


def test_a_record_without_a_body_is_one_json_line_as_before() -> None:
    line = _wire({"type": "hello", "pid": 3})
    assert json.loads(line) == {"type": "hello", "pid": 3}
    assert proto.loads(line.rstrip(b"\n")) == {"type": "hello", "pid": 3}


def test_the_header_ends_at_the_first_separator_whoever_wrote_the_rest() -> None:
    """A body holding a separator and a forged header changes no field of the header before it."""
    forged = b"[]" + RS + b'{"type":"result","id":"t::a","outcome":"passed","duration_s":0}'
    rec = proto.loads(b'{"type":"result","id":"t::a","outcome":"failed"}' + RS + forged)
    assert rec["outcome"] == "failed" and rec[proto.BODY] == forged
    rec["duration_s"] = 9.0
    got = parse_record(_wire(rec).rstrip(b"\n"))
    assert (got.outcome.value, got.duration_s) == ("failed", 9.0)
    assert not got.has_obs  # the body is no JSON list: nothing to decide the assertions from


def test_observations_come_from_the_body_only() -> None:
    in_header = json.dumps({"type": "result", "id": "t::a", "outcome": "passed", "obs": OBS}).encode()
    assert not parse_record(in_header).has_obs  # a header's "obs" is not read
    assert parse_record(in_header + RS + b"[]").has_obs
    for bad in (b"", b"{}", b"[1", b'"[]"', b"[" * 100_000 + b"]" * 100_000):
        assert not parse_record(in_header + RS + bad).has_obs


def test_no_header_can_name_the_body_key() -> None:
    """The key is no string: a header's keys, all strings, never collide with it."""
    rec = proto.loads(json.dumps({"type": "result", str(proto.BODY): "x", "obs": []}).encode())
    assert proto.BODY not in rec
    assert json.loads(_wire(rec)) == {"type": "result", str(proto.BODY): "x", "obs": []}


def test_an_unreadable_header_is_an_error_not_a_crash() -> None:
    for line in (b"not json" + RS + b"[]", b"[" * 100_000 + b"]" * 100_000, RS + b"[]"):
        try:
            proto.loads(line)
        except ValueError:
            continue
        raise AssertionError(f"{line[:20]!r} read as a record")
    assert parse_record(b"[" * 100_000 + RS + b"[]").kind == "invalid"


class _Quadratic:
    """The line splitter as it was (every read split the whole buffer again): the oracle."""

    def __init__(self, cap: int) -> None:
        self._buf, self._cap, self.overflow = b"", cap, False

    def feed(self, chunk: bytes) -> list[bytes]:
        self._buf += chunk
        *lines, self._buf = self._buf.split(b"\n")
        if len(self._buf) > self._cap:
            self._buf, self.overflow = b"", True
        return [ln for ln in lines if ln.strip()]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"x", b"\n")), max_size=30), st.integers(1, 60))
def test_the_line_buffer_splits_as_the_whole_buffer_split_would(chunks: list[bytes], cap: int) -> None:
    """Lines, blank ones dropped, and the cap's overflow, read for read as before it searched only
    the new chunk for line ends."""
    mine, oracle = proto.LineBuffer(cap), _Quadratic(cap)
    for chunk in chunks:
        assert mine.feed(chunk) == oracle.feed(chunk)
        assert mine.overflow == oracle.overflow


def test_a_long_line_is_searched_once() -> None:
    """A 2 MB record in 64 KiB reads comes out whole, as bytes (the speed is bench_score's to show)."""
    line = b'{"t":"' + b"ab" * 1_000_000 + b'"}'
    buf = proto.LineBuffer()
    got = [ln for i in range(0, len(line) + 1, 65536) for ln in buf.feed((line + b"\n")[i : i + 65536])]
    assert got == [line]
    assert isinstance(got[0], bytes) and not buf.overflow


def test_a_duration_that_is_no_finite_number_of_seconds_reads_as_none() -> None:
    """A worker is untrusted: an int past a float's range, NaN or a negative duration is 0, not a crash."""
    for duration in (10**400, float("nan"), float("inf"), -1.0, True, "3"):
        line = _wire({"type": "result", "id": "t::a", "outcome": "passed", "duration_s": duration})
        assert parse_record(line.rstrip(b"\n")).duration_s == 0.0, duration
    assert parse_record(_wire({"type": "result", "id": "t::a", "outcome": "passed", "duration_s": 2})
                        .rstrip(b"\n")).duration_s == 2.0  # fmt: skip
