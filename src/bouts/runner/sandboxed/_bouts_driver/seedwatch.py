"""Whether a trusted run's tests could have read the phase's seed (the reference's runs only).

The reference's golden run under the published seed gives the values the hidden tests are held
to. The hidden suite's fresh-seed phase needs them again under the fresh seed, which costs a
sandbox session of its own, unless nothing in the hidden tests could have read the seed: then the
reference's values under any seed are those it gave under the published one
(docs/sandbox.md, "The fresh seed's reference run").

The seed reaches a test only through what the driver hands it: ``BOUTS_SEED`` in the environment,
the ``bouts_seed`` fixture and the global ``random`` generator, seeded per test. This module
watches those and, taking the seed as read, everything that could reach it around them: a process
started (it inherits the environment), a file under ``/proc`` opened (``environ``, ``cmdline``),
``ctypes``, the garbage collector's object walks, other threads' frames, tracing and profiling
hooks, and ``hypothesis`` (which draws its own seed from the global generator). Not watched: a
frame walked up from the test's own (``sys._getframe``, which every ``namedtuple`` calls) into the
driver's, and ``os.environ._data``. It is a measurement of trusted code (the
reference solution under the challenge's tests), not a defence: no submission runs while it is on,
and a wrong answer costs only an honest solution a hidden test, never a forged pass.
"""

from __future__ import annotations

import os
import random
import sys

consumed = False
"""Whether anything watched happened since :func:`begin` (or since :func:`install`)."""
_armed = False
_state: object = None

_KEYS = ("BOUTS_SEED", b"BOUTS_SEED")
_EVENTS = frozenset({
    "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.fork", "os.forkpty",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
    "sys.setprofile", "sys.settrace",
})  # fmt: skip


def _hook(event: str, args: tuple) -> None:
    global consumed
    if not _armed or consumed:
        return
    if event in _EVENTS or event.startswith("ctypes."):
        consumed = True
    elif event == "open" and args:
        path = args[0]
        if isinstance(path, bytes):
            path = path.decode(errors="replace")
        if isinstance(path, str) and os.path.normpath(path).startswith("/proc"):
            consumed = True


class _Environ(os._Environ):  # type: ignore[name-defined,misc]
    """``os.environ`` (and ``os.environb``) noting a read of the seed's variable. ``get``,
    ``in``, ``copy``, ``items`` and ``|`` all read through ``__getitem__``; ``repr`` reads the
    mapping directly, so it counts too."""

    def __getitem__(self, key: object) -> object:
        global consumed
        if type(key) in (str, bytes) and key in _KEYS:
            consumed = True
        return super().__getitem__(key)

    def __repr__(self) -> str:
        global consumed
        consumed = True
        return super().__repr__()


def install() -> None:
    """Start watching (a worker of a reference run, before collection: a test module may read the
    seed at import, and which tests exist may then depend on it)."""
    global _armed
    sys.addaudithook(_hook)
    for mapping in (os.environ, getattr(os, "environb", None)):
        if mapping is not None and type(mapping) is os._Environ:  # type: ignore[attr-defined]
            mapping.__class__ = _Environ
    _armed = True


def collection_seeded() -> bool:
    """Whether importing and collecting the tests may have read the seed (``hypothesis`` loaded
    counts: its tests draw their own seed)."""
    return not _armed or consumed or "hypothesis" in sys.modules


def begin() -> None:
    """A test is about to run, the global generator just seeded for it."""
    global consumed, _state
    consumed = False
    _state = random.getstate()


def seeded() -> bool:
    """Whether the test that just ran may have read the seed: anything watched, or a draw from
    the global generator (its state moved)."""
    return not _armed or consumed or random.getstate() != _state or "hypothesis" in sys.modules


def note() -> None:
    """The seed was handed over (the ``bouts_seed`` fixture)."""
    global consumed
    consumed = True
