"""Bouts: the scoring engine. The public API, what every driver (CLI, service, workers) calls:

    from pathlib import Path
    import bouts

    card = bouts.score(Path("examples/inventory-ledger"), Path("submission.tar.gz"))
    print(card.final, card.band, card.math)

``score`` (``bouts.pipeline.score``) scores one submission against one challenge; ``ScoreConfig``
says how (sandbox, seeds, judges, caches); ``load_challenge`` reads and validates a challenge
directory; ``Scorecard`` is the result (schema ``bouts.scorecard/1``); ``BoutsError`` is the base of
every error raised on purpose (``InputError``: the user's input, naming the file and field;
``InfrastructureError``: the engine's own environment). These names are frozen by a test: anything
else is internal and may change. Names are imported on first use, so ``import bouts`` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = [
    "BoutsError",
    "InfrastructureError",
    "InputError",
    "ScoreConfig",
    "Scorecard",
    "__version__",
    "load_challenge",
    "score",
]

_LAZY = {
    "__version__": "bouts.version",
    "score": "bouts.pipeline",
    "ScoreConfig": "bouts.pipeline",
    "load_challenge": "bouts.loading",
    "Scorecard": "bouts.models.scorecard",
    "BoutsError": "bouts.errors",
    "InputError": "bouts.errors",
    "InfrastructureError": "bouts.errors",
}

if TYPE_CHECKING:
    from bouts.errors import BoutsError, InfrastructureError, InputError
    from bouts.loading import load_challenge
    from bouts.models.scorecard import Scorecard
    from bouts.pipeline import ScoreConfig, score
    from bouts.version import __version__


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bouts' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(__all__)
