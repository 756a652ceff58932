"""A test file's plan (``_externalise.FilePlan``) as JSON and back, exactly. Pure.

The plan holds the literal expected values of its sites (``Operand.value``: what
``ast.literal_eval`` makes of a test's literal: ``None``, bools, ints, floats, complex numbers,
strings, bytes, ``...``, tuples, lists, sets, dicts), which the host compares the submission's
observations against. JSON alone would turn a tuple into a list and ``1e999`` into nothing, so
every value but ``None``, a bool, an int and a string is tagged with its type; decoding accepts
these tags only, and a value or field of any other shape makes the whole plan unreadable
(``None``: the file is rewritten again), never a different plan. No pickle, no ``eval``.
"""

from __future__ import annotations

from typing import Any, get_args

from bouts.runner._externalise import FilePlan, Form, Operand, Role, Site

SCHEMA = "planjson/2"
_ROLES = frozenset(get_args(Role))
_FORMS = frozenset(get_args(Form))
_SEQUENCES: dict[str, type] = {"t": tuple, "l": list, "s": set, "fs": frozenset}


class Unreadable(ValueError):
    """A stored plan that is not one this module wrote."""


def encode_value(value: object) -> Any:
    """``value`` (a literal's) as JSON data; ``TypeError`` for a type a literal cannot have."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return {"f": repr(value)}
    if isinstance(value, complex):
        return {"c": [repr(value.real), repr(value.imag)]}
    if isinstance(value, bytes):
        return {"b": value.hex()}
    if value is Ellipsis:
        return {"e": 0}
    if isinstance(value, dict):
        return {"d": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    for tag, kind in _SEQUENCES.items():
        if type(value) is kind:
            return {tag: [encode_value(v) for v in value]}  # type: ignore[attr-defined]
    raise TypeError(f"not a literal's value: {type(value).__name__}")


def decode_value(data: Any) -> object:
    """The value :func:`encode_value` encoded; :class:`Unreadable` for anything else."""
    if data is None or isinstance(data, bool | str):
        return data
    if isinstance(data, int):
        return data
    if not isinstance(data, dict) or len(data) != 1:
        raise Unreadable(f"not an encoded value: {type(data).__name__}")
    (tag, body), = data.items()
    try:
        if tag == "f" and isinstance(body, str):
            return float(body)
        if tag == "c" and isinstance(body, list) and len(body) == 2 and all(isinstance(x, str) for x in body):
            return complex(float(body[0]), float(body[1]))
        if tag == "b" and isinstance(body, str):
            return bytes.fromhex(body)
        if tag == "e" and body == 0:
            return Ellipsis
        if tag == "d" and isinstance(body, list):
            if not all(isinstance(p, list) and len(p) == 2 for p in body):
                raise Unreadable("a dict's items are not pairs")
            return {decode_value(k): decode_value(v) for k, v in body}
        if tag in _SEQUENCES and isinstance(body, list):
            return _SEQUENCES[tag](decode_value(v) for v in body)
    except (ValueError, TypeError) as exc:  # a bad float text, an unhashable key
        raise Unreadable(str(exc)) from None
    raise Unreadable(f"unknown tag {tag!r}")


def encode_plan(plan: FilePlan) -> dict[str, Any]:
    """``plan`` as JSON data (``TypeError`` if a site holds a value no literal has; ``RecursionError``
    for one nested too deep: the caller keeps such a plan in memory only)."""
    return {"schema": SCHEMA, "external": plan.external, "golden": plan.golden, "error": plan.error,
            "sites": [_encode_site(s) for s in plan.sites.values()]}  # fmt: skip


def _encode_site(s: Site) -> dict[str, Any]:
    return {"site": s.site, "line": s.line, "form": s.form, "op": s.op, "types": list(s.types),
            "rel": encode_value(s.rel), "abs": encode_value(s.abs), "match": s.match,
            "externalised": s.externalised, "why": s.why, "expr": s.expr,
            "operands": [[o.role, encode_value(o.value)] for o in s.operands]}  # fmt: skip


def decode_plan(data: Any) -> FilePlan:
    """The plan :func:`encode_plan` encoded; :class:`Unreadable` for anything else."""
    try:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise Unreadable("not a stored plan of this schema")
        texts = [data["external"], data["golden"], data["error"]]
        if not all(isinstance(t, str) for t in texts) or not isinstance(data["sites"], list):
            raise Unreadable("a plan's texts or sites")
        sites = [_decode_site(s) for s in data["sites"]]
    except (KeyError, TypeError, RecursionError) as exc:
        raise Unreadable(f"{type(exc).__name__}: {exc}") from None
    by_number = {s.site: s for s in sites}
    if len(by_number) != len(sites):
        raise Unreadable("two sites share a number")
    return FilePlan(texts[0], texts[1], by_number, texts[2])


def _decode_site(d: Any) -> Site:
    if not isinstance(d, dict):
        raise Unreadable("a site is not an object")
    ints, strs = (d["site"], d["line"]), (d["op"], d["why"])
    if not all(type(x) is int for x in ints) or not all(isinstance(x, str) for x in strs):
        raise Unreadable("a site's numbers or texts")
    if d["form"] not in _FORMS or not isinstance(d["externalised"], bool):
        raise Unreadable("a site's form")
    if not isinstance(d["expr"], str):
        raise Unreadable("a site's condition")
    if not (d["match"] is None or isinstance(d["match"], str)):
        raise Unreadable("a site's match")
    if not isinstance(d["types"], list) or not all(isinstance(t, str) for t in d["types"]):
        raise Unreadable("a site's types")
    rel, tol = decode_value(d["rel"]), decode_value(d["abs"])
    if type(rel) is not float or type(tol) is not float:
        raise Unreadable("a site's tolerances")
    operands = []
    for item in d["operands"]:
        if not isinstance(item, list) or len(item) != 2 or item[0] not in _ROLES:
            raise Unreadable("a site's operand")
        operands.append(Operand(item[0], decode_value(item[1])))
    return Site(d["site"], d["line"], d["form"], tuple(operands), d["op"], tuple(d["types"]), rel, tol,
                d["match"], d["externalised"], d["why"], d["expr"])  # fmt: skip
