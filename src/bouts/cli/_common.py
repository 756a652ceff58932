"""What several commands share (``score`` and ``eval``; ``calibration stats`` and its validity report)."""

from __future__ import annotations

from pathlib import Path


def challenge_id(arg: str) -> str:
    """A challenge given as a directory (its ``challenge.toml``'s id) or as its id."""
    path = Path(arg)
    if path.is_dir():
        from bouts.loading import load_challenge

        return load_challenge(path).spec.id
    return arg


def correctness_judges(chosen: tuple[str, ...] | None) -> tuple[str, ...]:
    """``--tests-only``: of the judges asked for (default: every registered one), those that feed
    correctness (``bouts.modes``)."""
    from bouts.judging import builtin_judges
    from bouts.modes import correctness_judges as feeding_correctness

    return feeding_correctness(builtin_judges(chosen))
