"""Example arguments written as prose in a docstring: pure, text in, literal values out.

Task texts show their examples in many shapes besides ``>>> f(...)`` (which ``_oracle`` reads as
calls, with ``f(x) ==> y``, ``f(x) -> y`` and ``f(x) should return y``):

- ``Input: arr = [4,2,3], k = 3``, ``For num = "AB" the output should be 1``, a line
  ``arr = [2, 1, 1, 4]``: assignments of parameters, one call per run of assignments that only
  separators (commas, ``;``, ``and``, line breaks) part;
- ``Input: [4,2,3]`` or ``Input: 3`` (below an ``Example 1:``): the arguments by position;
- an ``Input:`` block of ``name : value`` lines whose names are not the parameters' but which
  has as many values as the callable has positional parameters: by position, in order;
- ``is_happy(abcd) => True``, calls with unquoted words and a result, at least two of them
  (:func:`bare_word_calls`): the words as strings;
- the parameters' types in words (:func:`typed_calls`, used only for a callable no example and
  no type hint shows): ``Given a positive integer n``, ``s is a string``, ``lst: list of
  integers`` give small values of that type.

Values are read with ``ast.literal_eval`` only (never evaluated): the longest prefix of the text
after ``=`` (or ``Input:``) that is a Python literal, ending at a separator, never past the line
unless a bracket is open. Which values are really in the contract is still the reference's call
(``_oracle``): an input it rejects is not compared.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bouts._pyast import literal_value
from bouts._pyast import parse as parse_python
from bouts.adversarial._examples import Call
from bouts.adversarial._model import Param

MAX_VALUE_CHARS = 2_000
"""A value longer than this (as text) is not read."""
MAX_ENDS = 8
"""Where a value may end, tried per value (the first separators after it, longest first): a
literal spans at most a few separators (``[1, 2]``, ``"a b"``), and a sentence is not re-parsed
word by word."""
MAX_CALLS = 8
"""Prose calls read per callable: the domain needs a few examples, not every one."""

_NAME_VALUE = re.compile(r"(?<![\w.@\[\]'\"])([A-Za-z_]\w*)\s*(=(?![=>])|:(?![:=]))[ \t]*")
_INPUT = re.compile(r"\binput\s*:[ \t]*(?:\n[ \t]*)?", re.IGNORECASE)
_ANSWER_WORDS = frozenset({"output", "outputs", "result", "results", "return", "returns", "expected", "answer",
                           "explanation", "note", "example", "examples", "constraints"})  # fmt: skip
"""Names that end an example's arguments rather than being one (``Output: 6``, ``return = ['One']``)."""
_SEPARATOR = re.compile(r"[\s,;]*(?:and[\s,;]+)?", re.IGNORECASE)


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    name: str
    value: object


def prose_calls(doc: str, params: Sequence[Param]) -> list[Call]:
    """The calls ``doc`` shows in prose for a callable with ``params`` (``self`` excluded), in the
    order written, without repeats; ``[]`` when it shows none."""
    names = [p.name for p in params]
    if not names or not doc:
        return []
    positional = [p.name for p in params if not p.keyword_only]
    calls: list[Call] = []

    def keep(call: Call) -> None:
        if call not in calls and len(calls) < MAX_CALLS:
            calls.append(call)

    inputs = [m.end() for m in _INPUT.finditer(doc)]
    for group in _groups(doc, _assignments(doc)):
        given = {f.name for f in group}
        if given <= set(names) and len(given) == len(group):
            keep(((), {f.name: f.value for f in group}))
        elif group[0].start in inputs and len(group) == len(positional):
            keep((tuple(f.value for f in group), {}))
    for at in inputs:
        if _NAME_VALUE.match(doc, at) is None:
            args = _arguments(doc, at)
            if args is not None and 0 < len(args) <= len(positional):
                keep((args, {}))
    return calls


_BARE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(\s*(\w+(?:\s*,\s*\w+)*)\s*\)\s*(?:=+>|->|should return)")
MIN_BARE_CALLS = 2


def bare_word_calls(doc: str, name: str, params: Sequence[Param]) -> list[Call]:
    """Calls of ``name`` written with unquoted words for strings, each followed by its result
    (``is_happy(abcd) => True``), read as strings: only when ``doc`` has at least two such calls
    of ``name`` and every one is written so (no word a parameter's name, a number, ``True``,
    ``False`` or ``None``): ``f(x) -> y`` alone, or beside ``f(3) -> 5``, says nothing."""
    reserved = {p.name for p in params} | {"True", "False", "None"}
    calls: list[Call] = []
    for m in _BARE_CALL.finditer(doc):
        if m.group(1) != name:
            continue
        words = tuple(w.strip() for w in m.group(2).split(","))
        if any(w in reserved or not w.isidentifier() for w in words) or len(words) > len(params):
            return []
        if (words, {}) not in calls:
            calls.append((words, {}))
    return calls[:MAX_CALLS] if len(calls) >= MIN_BARE_CALLS else []


def _assignments(doc: str) -> list[_Found]:
    found: list[_Found] = []
    for m in _NAME_VALUE.finditer(doc):
        if found and m.start() < found[-1].end:
            continue
        read = _value(doc, m.end())
        if read is not None:
            found.append(_Found(m.start(), read[1], m.group(1), read[0]))
    return found


def _groups(doc: str, found: list[_Found]) -> list[list[_Found]]:
    """Runs of assignments parted by separators only; an answer word (``Output: 6``) ends a run
    and is no argument; a name given twice starts a new run."""
    groups: list[list[_Found]] = []
    current: list[_Found] = []
    for f in found:
        joined = bool(current) and _SEPARATOR.fullmatch(doc[current[-1].end : f.start]) is not None
        if current and (not joined or f.name in {g.name for g in current} or f.name.lower() in _ANSWER_WORDS):
            groups.append(current)
            current = []
        if f.name.lower() not in _ANSWER_WORDS:
            current.append(f)
    if current:
        groups.append(current)
    return groups


def _value(doc: str, start: int) -> tuple[object, int] | None:
    """The longest literal at ``doc[start:]`` that ends before a separator at bracket depth 0 (no
    comma at depth 0: ``x = 1, y = 2`` is two values), and where it ends."""
    for end in reversed(_ends(doc, start, commas=False)[:MAX_ENDS]):
        text = doc[start:end].strip()
        try:
            node = parse_python(text, mode="eval").body
            return literal_value(node), end
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _arguments(doc: str, start: int) -> tuple[object, ...] | None:
    """The longest run of positional literal arguments at ``doc[start:]`` (``[4,2,3]``, ``3, 5``)."""
    for end in reversed(_ends(doc, start, commas=True)[:MAX_ENDS]):
        text = doc[start:end].strip().rstrip(",")
        try:
            node = parse_python(f"_({text})", mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        if not isinstance(node, ast.Call) or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        try:
            return tuple(literal_value(a) for a in node.args)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
    return None


def _ends(doc: str, start: int, *, commas: bool) -> list[int]:
    """Where a literal starting at ``start`` may end: before whitespace, ``,`` ``;`` ``)`` or a
    sentence's full stop at bracket depth 0 outside quotes; never past the line at depth 0, a
    depth-0 comma when ``commas`` is false, or ``MAX_VALUE_CHARS``."""
    ends: list[int] = []
    depth, quote, i = 0, "", start
    stop = min(len(doc), start + MAX_VALUE_CHARS)
    while i < stop:
        ch = doc[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
            elif ch == "\n":
                return ends  # an unclosed string: no literal past here
            i += 1
            continue
        if depth == 0 and (ch in " \t\n,;)" or (ch == "." and (i + 1 == len(doc) or doc[i + 1].isspace()))):
            if i > start and not doc[i - 1].isspace():
                ends.append(i)
            if ch == "\n" or ch == ")" or (ch == "," and not commas) or ch == ";":
                return ends
            if ch == ".":
                return ends
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return ends
        i += 1
    if depth == 0 and not quote and i == len(doc) and i > start:
        ends.append(i)
    return ends


_KINDS: dict[str, tuple[object, object]] = {
    "integer": (1, 7), "int": (1, 7), "natural": (1, 7), "number": (1.5, 3), "float": (1.5, 3.25),
    "string": ("ab", "abc"), "str": ("ab", "abc"), "word": ("ab", "abc"), "sentence": ("ab cd", "abc"),
}  # fmt: skip
"""Two small example values for each type named in words (integers stay positive unless the text
says non-negative or negative numbers may occur: the reference decides the rest)."""
_LISTS: dict[str, tuple[object, object]] = {
    "integers": ([1, 2, 3], [4, 0, 7]), "ints": ([1, 2, 3], [4, 0, 7]), "numbers": ([1.5, 2, 3], [4, 0.5]),
    "floats": ([1.5, 2.0], [0.5, 4.25]), "strings": (["ab", "c"], ["abc", "b", "ca"]),
    "words": (["ab", "c"], ["abc", "b", "ca"]),
}  # fmt: skip
_ADJ = r"(?:(?P<adj>positive|non-negative|nonnegative|natural)\s+)?"
_SCALAR = r"(?P<kind>integer|int|number|float|string|str|word|sentence)"
_ITEMS = r"(?P<items>integers|ints|numbers|floats|strings|words)"
_LIST = r"(?:list|array|sequence)\s+of\s+(?:(?:positive|non-negative|nonnegative|natural)\s+)?" + _ITEMS


def typed_calls(doc: str, params: Sequence[Param]) -> list[Call]:
    """Calls from the parameters' types in words (``a positive integer n``, ``n is an integer``,
    ``@N integer``, ``lst: list of integers``, ``a list of strings lst``): one or two, and only
    when every required parameter's type is named."""
    values: dict[str, tuple[object, object]] = {}
    for p in params:
        name = re.escape(p.name)
        for pattern in (
            rf"\b(?:{_LIST}|{_ADJ}{_SCALAR})\s+{name}\b",
            rf"(?<![\w.])@?{name}\s*(?:is\s+|:\s*)?(?:an?\s+|the\s+)?(?:{_LIST}|{_ADJ}{_SCALAR})\b",
        ):
            m = re.search(pattern, doc, re.IGNORECASE)
            if m is None:
                continue
            if m.group("items"):
                values[p.name] = _LISTS[m.group("items").lower()]
            else:
                low, high = _KINDS[m.group("kind").lower()]
                if m.group("adj") and m.group("adj").lower() in ("non-negative", "nonnegative") and low == 1:
                    low = 0
                values[p.name] = (low, high)
            break
    if not values or any(not p.has_default and p.name not in values for p in params):
        return []
    return [((), {n: v[i] for n, v in values.items()}) for i in (0, 1)]
