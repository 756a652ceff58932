"""Authoring: what helps a person write a challenge (``bouts new``)."""

from bouts.authoring.scaffold import FLAVOURS, LANGUAGES, new_challenge, new_submission

__all__ = ["FLAVOURS", "LANGUAGES", "new_challenge", "new_submission"]
