"""Typed models for everything that crosses a module boundary."""

# The front door is the vocabulary's modules, each imported by name (bouts.models.challenge, ...).
__all__ = [
    "challenge",
    "placeholders",
    "results",
    "scorecard",
    "submission",
    "trajectory",
    "verdict",
    "view",
]
