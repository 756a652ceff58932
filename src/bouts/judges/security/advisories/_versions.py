"""Is this version affected? OSV's range evaluation with each ecosystem's own version order; pure.

PyPI versions are ordered by PEP 440 (``packaging``), npm versions and every ``SEMVER`` range by
SemVer 2.0 precedence (``semver``: pre-releases before their release, build metadata ignored), as
npm orders them. The walk over a range's events is OSV's ``IsVulnerable`` (schema, "Evaluation"):
events sorted by version, ``introduced`` turns the range on, ``fixed`` off at that version,
``last_affected`` off after it, and ``limit`` events bound the range. A bound that does not parse
in the ecosystem's order leaves that range unevaluated, said so, never read as "not affected".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import total_ordering
from typing import Any

from bouts.judges.security.advisories._osv import Affected, Event, Range

_KIND_ORDER = {"introduced": 0, "fixed": 1, "last_affected": 1}


class UnparsedVersion(ValueError):
    """A version string that is not a version of its ecosystem's order."""


def pep440(text: str) -> Any:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        raise UnparsedVersion(f"'{text}' is not a PEP 440 version") from None


def semver(text: str) -> Any:
    import semver as _semver

    try:
        return _semver.Version.parse(text)
    except (ValueError, TypeError):
        raise UnparsedVersion(f"'{text}' is not a SemVer 2.0 version") from None


ECOSYSTEM_ORDER: dict[str, Callable[[str], Any]] = {"PyPI": pep440, "npm": semver}
"""The version order of each ecosystem whose manifests are read (OSV ``ECOSYSTEM`` ranges)."""


def order_for(range_type: str, ecosystem: str) -> Callable[[str], Any] | None:
    """How to parse the versions of a range; None for ``GIT`` and unknown types (not evaluated)."""
    if range_type == "SEMVER":
        return semver
    if range_type == "ECOSYSTEM":
        return ECOSYSTEM_ORDER.get(ecosystem)
    return None


@total_ordering
class _Zero:
    """OSV's ``introduced: "0"``: before every version."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Zero)

    def __lt__(self, other: object) -> bool:
        return not isinstance(other, _Zero)

    def __hash__(self) -> int:
        return 0


@dataclass(frozen=True)
class Match:
    """Whether a version is affected, and the ranges that could not be evaluated (with why)."""

    affected: bool
    unevaluated: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()
    """``fixed`` versions of the ranges that matched: the upgrade the finding suggests."""


def is_affected(ecosystem: str, version: str, affected: Affected) -> Match:
    """OSV's ``IsVulnerable`` for one ``affected`` entry: listed in ``versions``, or inside a range."""
    parse = ECOSYSTEM_ORDER[ecosystem]
    if any(_same(parse, version, listed) for listed in affected.versions):
        return Match(True, fixed=_fixes(affected.ranges))
    unevaluated: list[str] = []
    fixes: list[str] = []
    for rng in affected.ranges:
        order = order_for(rng.type, ecosystem)
        if order is None:
            if rng.type != "GIT":
                unevaluated.append(f"range type '{rng.type}' is not known")
            continue
        try:
            if _in_range(order(version), rng.events, order):
                fixes += [e.version for e in rng.events if e.kind == "fixed"]
                return Match(True, fixed=tuple(fixes))
        except UnparsedVersion as exc:
            unevaluated.append(str(exc))
    return Match(False, unevaluated=tuple(unevaluated))


def _in_range(v: Any, events: Sequence[Event], order: Callable[[str], Any]) -> bool:
    limits = [e.version for e in events if e.kind == "limit"]
    if limits and not any("*" in lim or v < order(lim) for lim in limits):
        return False  # OSV's BeforeLimits: with limit events, only versions below one of them
    keyed = [(_Zero() if e.kind == "introduced" and e.version == "0" else order(e.version), e)
             for e in events if e.kind != "limit"]
    vulnerable = False
    for key, e in sorted(keyed, key=_sort_key):
        if e.kind == "introduced" and (isinstance(key, _Zero) or v >= key):
            vulnerable = True
        elif (e.kind == "fixed" and v >= key) or (e.kind == "last_affected" and v > key):
            vulnerable = False
    return vulnerable


def _sort_key(pair: tuple[Any, Any]) -> Any:
    key, e = pair
    return _Key(key, _KIND_ORDER[e.kind])


@total_ordering
class _Key:
    """Events by version (``"0"`` first), and at one version ``introduced`` before ``fixed``."""

    def __init__(self, version: Any, rank: int) -> None:
        self.version, self.rank = version, rank

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and (self.version, self.rank) == (other.version, other.rank)

    def __lt__(self, other: _Key) -> bool:
        a, b = self.version, other.version
        if isinstance(a, _Zero) or isinstance(b, _Zero):
            return (a < b) if a != b else self.rank < other.rank
        return (a, self.rank) < (b, other.rank)


def _same(parse: Callable[[str], Any], a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return bool(parse(a) == parse(b))
    except UnparsedVersion:
        return False


def _fixes(ranges: Sequence[Range]) -> tuple[str, ...]:
    return tuple(e.version for r in ranges if r.type != "GIT" for e in r.events if e.kind == "fixed")
