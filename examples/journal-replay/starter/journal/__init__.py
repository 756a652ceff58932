"""Replay a key-value store's journal."""

from journal.replay import replay

__all__ = ["replay"]
