"""Visible tests: one per behaviour of ``replay``. More are held back."""

from journal import replay


def test_replay_applies_sets_and_deletes():
    assert replay(["SET a 1", "SET b 2", "DEL a", "SET b 3"]) == {"b": 3}


def test_replay_discards_an_unfinished_transaction():
    journal = ["SET a 1", "BEGIN", "SET a 2", "SET b 5"]
    assert replay(journal) == {"a": 1}


def test_replay_ignores_a_torn_last_line():
    assert replay(["SET a 1", "SET b 2", "SET c 1"[:5]]) == {"a": 1, "b": 2}
