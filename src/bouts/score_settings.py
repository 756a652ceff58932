"""One configuration for every driver (issue 18, item 5): the settings that choose how a submission
is scored — sandbox, judges, LLM panel, advisory store, PostgreSQL variant, caches, workers — turned
into the ``ScoreConfig`` and the judge material in one place.

``bouts score``, ``bouts check`` and the service's workers (``bouts.service.jobs.score_config``)
each read their options or variables into a ``ScoreSettings`` and call ``configure``; none of them
builds a ``ScoreConfig`` or seats an LLM panel itself, so a scorecard scored by one reproduces with
another. ``configure`` seats the panel's judges in this process's judge registry (a driver whose
jobs run in other processes calls it in each of them; seating again is harmless).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bouts.errors import InputError
from bouts.pipeline import ScoreConfig, postgres_options


@dataclass(frozen=True)
class ScoreSettings:
    """What a driver was told about how to score (its options over its environment)."""

    sandbox: str = "bubblewrap"
    judges: tuple[str, ...] | None = None
    """Registered judges to seat; ``None``: every registered judge (and the panel's)."""
    llm_panel: Path | None = None
    """LLM judge panel file (TOML, docs/llm-judges.md); its judges sit beside the offline ones."""
    advisories: Path | None = None
    """The OSV advisory store the security judge checks pinned dependencies against."""
    postgres_dsn: str | None = None
    """libpq DSN of a PostgreSQL server over its unix socket (``bouts.pipeline.postgres_options``)."""
    cache_dir: Path | None = None
    workers: int = 2


@dataclass(frozen=True)
class Configured:
    """The ``ScoreConfig`` to score with, and the judge material: the configuration of judges seated
    at run time that the engine's code does not fix (the LLM panel's settings, never a key; the
    advisory store's digest), which the result cache keys on (``bouts.result_cache.score``)."""

    config: ScoreConfig
    judge_material: dict[str, Any]
    panel_judges: tuple[str, ...] = ()
    """The names the panel's judges sit under (empty without a panel)."""


def parse_judges(text: str | None) -> tuple[str, ...] | None:
    """A comma-separated judge list (``--judges``, ``BOUTS_JUDGES``): ``None``/empty → every
    registered judge; ``none`` → no judge."""
    if text is None or not text.strip():
        return None
    return tuple(j.strip() for j in text.split(",") if j.strip() not in ("", "none"))


def configure(settings: ScoreSettings, environ: Mapping[str, str], *, panel_setting: str | None = None) -> Configured:
    """The ``ScoreConfig`` and judge material for ``settings``, with the LLM panel (if any) seated.
    ``environ`` gives the panel's API keys (from the variables the panel file names). Raises
    ``InputError`` naming the file and field: a panel file that cannot be read or is wrong, a key
    variable that is unset, a PostgreSQL DSN the sandbox cannot reach (field ``postgres``).
    ``panel_setting``: the name the driver read the panel file from (``BOUTS_LLM_PANEL``); a panel
    error then names it first, on one line."""
    panel: dict[str, Any] | None = None
    names: tuple[str, ...] = ()
    if settings.llm_panel is not None:
        try:
            panel, names = seat_llm_panel(settings.llm_panel, environ)
        except InputError as exc:
            if panel_setting is None:
                raise
            raise InputError(exc.describe(), field=panel_setting) from None
    config = ScoreConfig(
        sandbox=settings.sandbox, workers=settings.workers, cache_dir=settings.cache_dir, judges=settings.judges,
        advisories=settings.advisories, **postgres_options(settings.postgres_dsn),  # type: ignore[arg-type]
    )  # fmt: skip
    return Configured(config, {"llm_panel": panel, "advisories": store_digest(settings.advisories)}, names)


def seat_llm_panel(path: Path, environ: Mapping[str, str]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Read an LLM panel file and register its judges; keys come from the variables it names.
    Returns the panel's settings (judge material: no key is in them) and its judges' names."""
    import bouts.judges.builtin  # noqa: F401  (registered first: a panel judge may not take a built-in's name)
    from bouts.judges.llm import LLMPanelConfig, resolve_keys, seat_llm_judges
    from bouts.judges.llm.config import DEFAULT_CACHE_DIR

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the LLM panel file: {exc.strerror}", file=str(path)) from None
    panel = LLMPanelConfig.from_toml(text, file=str(path))
    if panel.cache_dir is None:
        panel = panel.model_copy(update={"cache_dir": Path(DEFAULT_CACHE_DIR).expanduser()})
    try:
        keys = resolve_keys(panel, environ)
    except InputError as exc:
        raise InputError(exc.message, file=str(path), field=exc.field) from None
    try:
        names = seat_llm_judges(panel, keys)
    except ValueError as exc:  # a judge name another (offline) judge holds
        raise InputError(str(exc), file=str(path), field="judges.name") from None
    return panel.model_dump(mode="json", exclude={"cache_dir"}), tuple(names)


def store_digest(path: Path | None) -> str | None:
    """The advisory store's content digest (a re-import is a different key); None when there is no
    readable store (scoring then says why)."""
    from bouts.errors import BoutsError
    from bouts.judges.security.advisories import open_store

    if path is None:
        return None
    try:
        with open_store(path) as store:
            return store.info().digest
    except BoutsError:
        return None
