"""Every error class the engine defines is drawn in the one tree of bouts.errors (STYLE §4)."""

from __future__ import annotations

import importlib
import pkgutil

import bouts
from bouts import errors


def all_subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub} | all_subclasses(sub)
    return found


def test_every_bouts_error_is_in_the_drawn_tree() -> None:
    for info in pkgutil.walk_packages(bouts.__path__, "bouts."):
        if "._bouts_driver" in info.name or ".migrations" in info.name or info.name.endswith("__main__"):
            continue  # the in-sandbox driver, Alembic scripts and the entry point are not library modules
        importlib.import_module(info.name)
    tree = errors.__doc__ or ""
    undrawn = sorted(c.__name__ for c in all_subclasses(errors.BoutsError) if c.__name__ not in tree)
    assert not undrawn, f"draw these in the bouts.errors docstring: {undrawn}"
