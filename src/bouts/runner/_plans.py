"""Test files' rewrites (``_externalise.plan_file``), made once per file's text and engine.

A rewrite is a pure function of the file's path, its text and the engine, and costs about as much
as a sample of a small dataset task takes on the host besides (14 ms for a HumanEval task's two
files, docs/benchmarks.md). It is memoised in the process (a worker scores many submissions of one
challenge) and, given the engine's cache directory, kept there (``bouts.cache.Store``, namespace
``plans``: the key holds the engine's fingerprint, the entry a MAC only the engine can make), so a
dataset's second run, or another process, reads it instead of rewriting again. What is stored is
JSON (``_planjson``); an entry that does not decode is a miss, never a different plan.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from bouts.runner import _planjson
from bouts.runner._externalise import VERSION, FilePlan, plan_file

_MEMORY: dict[tuple[str, str], FilePlan] = {}
_MEMORY_MAX = 256
NAMESPACE = "plans"


def plan_for(rel: str, text: str, cache_dir: Path | None = None) -> FilePlan:
    """The rewrite of the test file at ``rel`` (its path in the workspace) holding ``text``."""
    key = (rel, text)
    plan = _MEMORY.get(key)
    if plan is not None:
        return plan
    store = None
    if cache_dir is not None:
        from bouts.cache import Store

        store = Store.open(cache_dir, NAMESPACE)
    material = key_material(rel, text)
    plan = _stored(store.get(material)) if store is not None else None
    if plan is None:
        plan = plan_file(text, rel)
        if store is not None:
            try:
                data = _planjson.encode_plan(plan)
            except (TypeError, RecursionError):  # a value no literal has, or nested too deep: memory only
                data = None
            if data is not None:
                store.put(material, data)
    if len(_MEMORY) >= _MEMORY_MAX:
        _MEMORY.clear()
    _MEMORY[key] = plan
    return plan


def key_material(rel: str, text: str) -> dict[str, str]:
    """What a stored plan is keyed on (the store adds the engine's fingerprint)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return {"schema": _planjson.SCHEMA, "rewrite": VERSION, "rel": rel, "sha256": digest}


def _stored(data: object) -> FilePlan | None:
    if data is None:
        return None
    try:
        return _planjson.decode_plan(data)
    except (_planjson.Unreadable, RecursionError):
        return None
