"""Runtime of the generated tests that draw values (hypothesis), embedded after ``_runtime.py`` in
every generated file but the reference oracle's (``_generate``).

It runs INSIDE the sandbox, never in the engine's process, and must stay self-contained (standard
library, pytest and hypothesis only).
"""

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import seed as _hseed
from hypothesis import strategies as st

BOUNDARY = [
    0, -1, 1, 2**31 - 1, 2**63 - 1, -(2**63), 2**64, 10**30, float("nan"), float("inf"), float("-inf"), -0.0, 1e308,
    "", " ", "0", "-1", "NaN", "\x00", "é", "\U0001f642", "\u202e" * 3, "Ω" * 10_000, None, [], {}, (), b"", True,
]  # fmt: skip
"""Empty, boundary (0, −1, MAX_INT, NaN, huge), unicode, missing (None) and wrong-typed values."""
# Fixed alphabets only: hypothesis's full-unicode text builds a character map first, 2-4 s in
# every test process (each test runs in a fresh fork of the worker, which loses the map).
TEXT = st.text(st.sampled_from("aZ09 ._-/:@\\'\"%\x00\téΩß\u202e\U0001f642"), max_size=40)
ADVERSARIAL = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), TEXT, st.binary(max_size=8),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.sampled_from("ab"), st.integers(), max_size=2),
)  # fmt: skip
# Validated once, here: this runs when the worker collects the file, before it forks a process per
# test, so every test inherits the work instead of repeating it.
for _strategy in (TEXT, ADVERSARIAL):
    _strategy.validate()


def fuzz(seed_value, max_examples=20, text_only=False):
    """``@given(value=...)`` with the boundary values first, deterministic from ``seed_value``.
    ``text_only``: strings only (a text the pattern does not match, not a wrong type)."""

    def deco(fn):
        fn = given(value=TEXT if text_only else ADVERSARIAL)(fn)
        for v in reversed([b for b in BOUNDARY if isinstance(b, str)] if text_only else BOUNDARY):
            fn = example(value=v)(fn)
        return _bounded(seed_value, max_examples)(fn)

    return deco


def _bounded(seed_value, max_examples):
    def deco(fn):
        fn = _hseed(seed_value)(fn)
        return settings(
            max_examples=max_examples, deadline=None, database=None, derandomize=False, report_multiple_bugs=False,
            phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck),
        )(fn)  # fmt: skip

    return deco


def version_pairs(seed_value, max_examples=20):
    """``@given(a=..., b=...)``: version component lists, small and two-digit numbers mixed."""
    parts = st.lists(st.integers(0, 30), min_size=2, max_size=3)

    def deco(fn):
        fn = given(a=parts, b=parts)(fn)
        fn = example(a=[1, 10, 0], b=[1, 9, 0])(fn)
        fn = example(a=[2, 0], b=[10, 0])(fn)
        return _bounded(seed_value, max_examples)(fn)

    return deco
