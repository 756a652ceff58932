"""``bouts check`` counts the assertions decided outside the sandbox and warns on hidden ones that are not."""

from __future__ import annotations

from bouts.calibration.assertions import assertion_counts


def test_counts_per_suite_and_a_warning_per_hidden_assertion_left_in_the_sandbox() -> None:
    files = {
        "tests/visible/test_v.py": ("visible", "from calc import f\ndef test_v():\n    assert f(1) == 2\n"),
        "tests/hidden/test_h.py": (
            "hidden",
            "import pytest\nfrom calc import f\n"
            "def test_a():\n    assert f(2) == 4\n"
            "@pytest.mark.parametrize('x, want', [(3, 6)])\n"
            "def test_b(x, want):\n    assert f(x) == want\n"
            "def test_c():\n    assert all(v > 0 for v in f(0))\n",
        ),
    }
    counts, problems = assertion_counts(files)  # type: ignore[arg-type]
    assert [(c.suite, c.externalised, c.total) for c in counts] == [("hidden", 1, 3), ("visible", 1, 1)]
    assert [(p.level, p.file, p.field) for p in problems] == [
        ("warning", "tests/hidden/test_h.py", "line 7"),
        ("warning", "tests/hidden/test_h.py", "line 9"),
    ]
    assert "parametrize" in problems[0].message and "no recognised shape" in problems[1].message
