"""Bouts: the scoring engine. ``score(...)`` is the one public entry point every driver calls."""

__version__ = "0.1.0"
