"""What a harness is given: the model behind the engine's proxy and the run's limits (read by ``_run``
and by each harness, e.g. ``_mini``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bouts.models.placeholders import PROXY_API_KEY


@dataclass(frozen=True)
class HarnessModel:
    """What a harness needs to reach the model: the proxy, never the endpoint itself."""

    url: str
    """OpenAI base URL of the engine's proxy (``http://127.0.0.1:PORT/v1``)."""
    model: str
    api_key: str = PROXY_API_KEY
    """Any value: the proxy sends the real key."""


@dataclass(frozen=True)
class RunSettings:
    """Limits of one run (typed, passed down from the CLI)."""

    step_limit: int = 50
    """Model calls at most."""
    time_s: float | None = None
    """Wall budget; None: the challenge's ``[budgets] time_s``, else ``bouts.agents._run.DEFAULT_TIME_S``."""
    command_timeout_s: float = 120.0
    agent: str | None = None
    """The agent's name on the scorecard; None: ``<harness>/<model>``."""
    record_dir: Path | None = None
    """Where the harness may keep its own log (kept for the user; the scorecard never reads it)."""
