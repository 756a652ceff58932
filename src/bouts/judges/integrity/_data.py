"""Data files the code can read, reviewed like code for the visible tests' values.

A hard-coded answer need not be written in a ``.py`` file: ``{"19.99": 1999}`` in a ``rates.json``
that ``money.py`` loads decides the output as surely as ``if price == "19.99"`` (issue 36's red
team: the inventory-ledger low anchor from 27 to 51, integrity 100). So a structured data file of
the submission (JSON, TOML, CSV/TSV, key-value or plain text lines) is read into the Python value
it would load as, written as a module (``DATA = {...}``), and handed to the same hard-coding
detectors as the code: a visible input as a lookup key, an expected table stored, an expected
value written out. The starter's and the reference's files explain their values as for code.
Pure: bytes in, a parsed :class:`SourceFile` (or None) out.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib

from bouts.judges.integrity._inputs import is_python_code
from bouts.judges.integrity._tree import SourceFile, parse_source

DATA_SUFFIXES = (".json", ".toml", ".csv", ".tsv", ".txt", ".dat", ".ini", ".cfg", ".properties", ".tab", ".data")
"""Files read as data. Anything else that is not code (images, archives) is judged elsewhere."""
MAX_DATA_BYTES = 256 * 1024
"""A data file is reviewed up to this size (the rest of its values would still be read at run time:
larger files cost the review budget like code, see ``_judge``)."""
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def data_source(rel: str, data: bytes) -> SourceFile | None:
    """``rel``'s values as a parsed module ``DATA = ...``; None when it holds no readable values."""
    if not rel.lower().endswith(DATA_SUFFIXES) or len(data) > MAX_DATA_BYTES:
        return None
    text = data.decode("utf-8", errors="replace")
    value = _load(rel.lower(), text)
    if value is None:
        return None
    try:
        module = f"DATA = {value!r}\n"
    except (RecursionError, ValueError):
        return None
    return parse_source(rel, module.encode())


def _load(rel: str, text: str) -> object:
    try:
        if rel.endswith(".json"):
            return json.loads(text)
        if rel.endswith(".toml"):
            return tomllib.loads(text)
    except (ValueError, RecursionError):
        pass  # not valid as its suffix says: read as lines below
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", ";", "["))]
    if not lines:
        return None
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines[:20]), delimiters=",\t;:=| ")
        rows = [tuple(c.strip() for c in row) for row in csv.reader(io.StringIO("\n".join(lines)), dialect)]
    except csv.Error:
        rows = [(ln,) for ln in lines]
    if rows and all(len(r) == 2 for r in rows):  # key-value lines: the lookup table they load as
        return {k: _scalar(v) for k, v in rows}
    return [r[0] if len(r) == 1 else tuple(_scalar(c) for c in r) for r in rows]


def _scalar(cell: str) -> object:
    """A cell as the number it spells (``1999``, ``19.99`` stays a string: a price is read as text),
    else the text."""
    if _NUMBER.fullmatch(cell) and "." not in cell:
        return int(cell)
    return cell


def hidden_code(rel: str, data: bytes) -> str | None:
    """Why a file that is not a ``.py`` holds code (None when it holds none): Python source under
    another name, or a pickle that calls what it names. Loaded by a helper that runs its argument
    (``run(open(p).read())``, ``pickle.load``), either runs code no judge reads."""
    if data[:1] == b"\x80" and data.rstrip()[-1:] == b".":
        return _pickle_calls(data)
    if len(data) > MAX_DATA_BYTES or b"\x00" in data[:4096]:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if is_python_code(text):
        return "Python code in a file that is not a .py: code no judge reads as code"
    return None


def _pickle_calls(data: bytes) -> str | None:
    import pickletools

    try:
        for op, _, _ in pickletools.genops(data[:MAX_DATA_BYTES]):
            if op.name in ("GLOBAL", "STACK_GLOBAL", "INST", "OBJ", "REDUCE", "NEWOBJ", "NEWOBJ_EX", "BUILD"):
                return f"a pickle that calls what it names ({op.name}): code no judge reads"
    except Exception:  # noqa: BLE001 (not a pickle after all: ordinary bytes)
        return None
    return None
