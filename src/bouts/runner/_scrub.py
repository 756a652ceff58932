"""Scrub what the sandbox said of the challenge's secrets, before it is stored or printed. Pure.

Code under test runs next to the hidden test files, and anything it says (an exception message, a
warning, a crash line; pytest's assertion rewriting, which quotes the failing test's own source)
reaches the host as text. The host does not trust the sandbox to keep secrets, so every text of a
:class:`RunReport` passes through :func:`scrub_report` (``bouts.pipeline.score`` applies it to every
report before any judge, scorecard or progress callback sees it):

1. a hidden test's detail is cut to the exception's type (an ASCII identifier of at most 60
   characters), whatever the worker sent, and a hidden node id in a crash line becomes its public
   form (parameters hashed, as on the scorecard), followed by its type only;
2. every run of :data:`K` characters that also occurs in a secret text (hidden test files,
   ``reference/`` sources) and in no public text (visible tests, ``starter/``, the run's test ids)
   is replaced by :data:`MARK`. Whitespace, control and invisible format characters are ignored
   and ``"`` reads as ``'`` when comparing, so re-spacing or quoting does not slip a copy through;
3. control characters are escaped (``bouts._controls``).

Work is bounded: a text is cut at :data:`MAX_TEXT` characters, a list at :data:`MAX_LINES` lines, and
at most :data:`MAX_SECRET_CHARS` characters of secrets are indexed. Why ``K = 16`` and what it
costs honest output: docs/sandbox.md, "What leaves the sandbox".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet

from bouts._controls import escape_controls
from bouts.models.results import RunReport, StabilitySignals, TestResult

K = 16
"""Length of the shortest copied run that is scrubbed (normalised characters)."""
MARK = "…"
MAX_TEXT = 4_000
"""Characters of one text that are kept (and scrubbed); the rest is cut."""
MAX_LINES = 200
"""Lines of one list (warnings, crashes, tampering) that are kept."""
MAX_SECRET_CHARS = 2_000_000
"""Normalised characters of secret text indexed (the bundled challenges hold about 20,000)."""
MAX_TYPE = 60

_IGNORABLE = r"\s\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
_IGNORED = re.compile(f"[{_IGNORABLE}]+")
_KEPT = re.compile(f"[^{_IGNORABLE}]")
_FOLD = str.maketrans({'"': "'"})


def normalise(text: str) -> str:
    """``text`` as it is compared: without ignored characters, ``"`` folded to ``'``."""
    return _IGNORED.sub("", text).translate(_FOLD)


def _grams(norm: str, k: int) -> set[int]:
    return {hash(norm[i : i + k]) for i in range(len(norm) - k + 1)}


class SecretIndex:
    """The k-grams of a challenge's secret texts that no public text holds, built once per challenge.

    ``hash()`` of a string is salted per process: an index lives in the process that built it.
    """

    __slots__ = ("_grams", "complete", "k")

    def __init__(self, grams: AbstractSet[int], k: int = K, *, complete: bool = True) -> None:
        self._grams = frozenset(grams)
        self.k = k
        self.complete = complete
        """False when the secrets passed :data:`MAX_SECRET_CHARS` and only their start was indexed."""

    @classmethod
    def build(cls, secrets: Iterable[str], public: Iterable[str] = (), *, k: int = K) -> SecretIndex:
        """Index ``secrets`` (each text on its own: no run spans two files) minus ``public``."""
        grams: set[int] = set()
        budget = MAX_SECRET_CHARS
        complete = True
        for text in secrets:
            norm = normalise(text)
            if len(norm) > budget:
                norm, complete = norm[:budget], False
            budget -= len(norm)
            grams |= _grams(norm, k)
            if budget <= 0:
                complete = False
                break
        for text in public:
            grams -= _grams(normalise(text), k)
        return cls(grams, k, complete=complete)

    def __len__(self) -> int:
        return len(self._grams)

    def grams_of(self, texts: Iterable[str]) -> frozenset[int]:
        """The k-grams of ``texts``, to pass as ``public`` to :meth:`scrub` (e.g. the run's test ids)."""
        out: set[int] = set()
        for text in texts:
            out |= _grams(normalise(text), self.k)
        return frozenset(out & self._grams)

    def scrub(self, text: str, *, public: AbstractSet[int] = frozenset()) -> str:
        """``text`` cut at :data:`MAX_TEXT`, each secret run replaced by :data:`MARK`, controls escaped."""
        if len(text) > MAX_TEXT:
            text = f"{text[:MAX_TEXT]} {MARK} ({len(text) - MAX_TEXT} more characters cut)"
        norm = normalise(text)
        k, grams = self.k, self._grams
        spans: list[list[int]] = []  # [start, end) in ``norm``; touching runs merge
        for i in range(len(norm) - k + 1):
            h = hash(norm[i : i + k])
            if h in grams and h not in public:
                if spans and i <= spans[-1][1]:
                    spans[-1][1] = i + k
                else:
                    spans.append([i, i + k])
        if spans:
            kept = [m.start() for m in _KEPT.finditer(text)]  # position in ``text`` of each char of ``norm``
            out, at = [], 0
            for start, end in spans:
                out += [text[at : kept[start]], MARK]
                at = kept[end - 1] + 1
            text = "".join(out) + text[at:]
        return escape_controls(text)


def public_id(node: str) -> str:
    """A hidden test's id as the scorecard shows it: its parameters may spell out expected values,
    so they become a short hash (the same rule as ``bouts.assemble``)."""
    if "[" not in node:
        return node
    base, _, params = node.partition("[")
    return f"{base}[#{hashlib.sha256(params.encode()).hexdigest()[:8]}]"


def type_only(detail: str, fallback: str) -> str:
    """A hidden test's detail: the exception's type, or ``fallback`` (its outcome) when the detail does
    not start with one. The worker already sends no more; the host does not take its word for it."""
    head = detail.split(":", 1)[0].strip()
    return head if head.isascii() and head.isidentifier() and len(head) <= MAX_TYPE else fallback


def scrub_result(result: TestResult, index: SecretIndex, public: AbstractSet[int] | None = None) -> TestResult:
    """One result, scrubbed (``public``: the run's test-id grams; by default its own id's)."""
    hidden = result.suite == "hidden"
    keep = index.grams_of([public_id(result.id) if hidden else result.id]) if public is None else public
    detail = type_only(result.detail, result.outcome.value) if hidden and result.detail else result.detail
    return result.model_copy(update={"detail": index.scrub(detail, public=keep)})


def scrub_report(report: RunReport, index: SecretIndex) -> RunReport:
    """Every text of ``report`` scrubbed: details, warnings, crashes, tampering findings, infra error,
    exploit evidence."""
    hidden = sorted({r.id for r in report.results if r.suite == "hidden"}, key=len, reverse=True)
    keep = index.grams_of(public_id(r.id) if r.suite == "hidden" else r.id for r in report.results)

    def text(line: str) -> str:
        return index.scrub(line, public=keep)

    stability = StabilitySignals(
        warnings=_lines(report.stability.warnings, text, unique=True),
        crashes=_lines([_hidden_ids(line, hidden) for line in report.stability.crashes], text),
    )
    return report.model_copy(
        update={
            "results": [scrub_result(r, index, keep) for r in report.results],
            "stability": stability,
            "tampering": _lines(report.tampering, text),
            "infra_error": text(report.infra_error) if report.infra_error else report.infra_error,
            # Written from inside the sandbox too (a looked-up "host name" can carry any text).
            "exploits": [e.model_copy(update={"evidence": text(e.evidence), "where": _hidden_ids(e.where, hidden)})
                         for e in report.exploits],  # fmt: skip
        }
    )


def _lines(lines: Sequence[str], text: Callable[[str], str], *, unique: bool = False) -> list[str]:
    kept = [text(line) for line in lines[:MAX_LINES]]
    kept = list(dict.fromkeys(kept)) if unique else kept
    return kept + ([f"{MARK} {len(lines) - MAX_LINES} more not kept"] if len(lines) > MAX_LINES else [])


def _hidden_ids(line: str, hidden: Sequence[str]) -> str:
    """``crashed: tests/hidden/t.py::f[1-2]: <anything>`` → ``crashed: tests/hidden/t.py::f[#hash]: Type``."""
    for node in hidden:
        at = line.find(node)
        if at >= 0:
            rest = line[at + len(node) :].removeprefix(":").strip()
            head = type_only(rest, "") if rest else ""
            return line[:at] + public_id(node) + (f": {head}" if head else "")
    return line
