"""Pre-built adversarial tests: corrupt journals that must not be replayed silently, each with a
severity (critical 5, high 3, medium 2, low 1)."""

import pytest

from journal import replay


@pytest.mark.severity("critical")
def test_a_corrupt_entry_before_the_end_is_refused():
    with pytest.raises(ValueError, match="line 2"):
        replay(["SET a 1", "SET b two", "SET c 3"])


@pytest.mark.severity("high")
def test_an_unknown_operation_is_refused():
    with pytest.raises(ValueError):
        replay(["SET a 1", "DROP a", "SET b 2"])


@pytest.mark.severity("medium")
def test_commit_without_begin_is_refused():
    with pytest.raises(ValueError):
        replay(["SET a 1", "COMMIT", "SET b 2"])


@pytest.mark.severity("medium")
def test_nested_begin_is_refused():
    with pytest.raises(ValueError):
        replay(["BEGIN", "SET a 1", "BEGIN", "COMMIT"])


@pytest.mark.severity("low")
def test_a_torn_line_is_only_forgiven_at_the_end():
    with pytest.raises(ValueError):
        replay(["SET a", "SET b 2"])
