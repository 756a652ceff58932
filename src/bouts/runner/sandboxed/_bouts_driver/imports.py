"""What the graded code may import (issue 39, SPEC §5): the standard library, the challenge's declared
dependencies (its prepared ``requirements.txt``, and the engine packages it names in ``[tests]
engine_packages``), the test framework (pytest, hypothesis and what they need; schemathesis for the
generated HTTP tests) and its own files. The engine's environment (about 200 packages: ``requests``,
``numpy``, ``bs4``...) is the driver's, not the submission's: a sample that imports ``requests``
fails here as it fails under a plain ``python -m pytest`` beside only its declared dependencies.

One finder replaces every path-based finder of ``sys.meta_path`` (the interpreter's ``PathFinder``
and what the environment's ``.pth`` files added: an editable install's finder, setuptools' distutils
hack). An import is *graded* when the first frame that asked for it, past the import machinery and
code compiled from strings, belongs to a file under the workspace (the submission, the challenge's
tests, the generated ones); a top-level graded import of a name that is neither the standard library
nor visible is looked up only on ``sys.path`` without the engine's own entries, so it is found in the
workspace or the prepared dependencies, or not at all: ``ModuleNotFoundError`` and
``importlib.util.find_spec(...) is None``, as in the environment the challenge declares. Every other
import (the framework's own, the driver's) goes through the original finders unchanged.

Left (docs/sandbox.md): a module the framework already imported into the same process is served from
``sys.modules`` without asking any finder, and a loader pointed at an engine file by path
(``spec_from_file_location``) is not a lookup: both are deliberate acts in the submission's code.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from importlib.machinery import BuiltinImporter, FrozenImporter, PathFinder


def _norm(name: str) -> str:
    """A distribution name as packaging normalises it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


_MACHINERY = (os.path.dirname(os.__file__) + os.sep + "importlib" + os.sep, __file__)


class VisibleImports:
    """The one path-based finder of ``sys.meta_path`` while the driver runs (see the module docstring)."""

    def __init__(self, delegates: list[object], excluded: frozenset[str]) -> None:
        self.delegates = delegates
        self.excluded = excluded
        self.visible: frozenset[str] | None = None
        self.dists: frozenset[str] = frozenset()
        self.workspace = ""
        self.real: dict[str, str] = {}

    def configure(self, config: dict) -> None:
        names = config.get("visible")
        # the driver itself: rewritten assertions import its ``observe`` module
        self.visible = None if names is None else frozenset(names) | sys.stdlib_module_names | {"_bouts_driver"}
        self.workspace = os.path.realpath(config["workspace"]) + os.sep
        self.dists = frozenset(_norm(d) for d in config.get("visible_dists") or ())

    def _real(self, path: str) -> str:
        hit = self.real.get(path)
        if hit is None:
            hit = self.real[path] = os.path.realpath(path)
        return hit

    def _graded(self) -> bool:
        frame = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            if not name.startswith("<") and not name.startswith(_MACHINERY):
                return self._real(name).startswith(self.workspace)
            frame = frame.f_back
        return False

    def _visible_paths(self, paths: list) -> list[str]:
        return [p for p in paths if isinstance(p, str) and self._real(p or ".") not in self.excluded]

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
        if path is None and self.visible is not None and fullname not in self.visible and self._graded():
            return PathFinder.find_spec(fullname, self._visible_paths(sys.path))
        for finder in self.delegates:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                return spec
        return None

    def find_distributions(self, context: object = None) -> Iterator[object]:
        """``importlib.metadata``'s view: the graded code's finds only what it can import (a package
        of the engine's environment has no metadata for it either); everyone else's is unchanged."""
        from importlib.metadata import DistributionFinder

        ctx = context if context is not None else DistributionFinder.Context()
        if self.visible is None or not self._graded():
            yield from self._delegated(ctx)
            return
        yield from PathFinder.find_distributions(
            DistributionFinder.Context(name=ctx.name, path=self._visible_paths(ctx.path))
        )
        if ctx.name is None or _norm(ctx.name) in self.dists:  # the framework's and the declared ones
            for dist in self._delegated(ctx):
                if _norm(dist.metadata["Name"] or "") in self.dists:
                    yield dist

    def _delegated(self, ctx: object) -> Iterator:
        for finder in self.delegates:
            find = getattr(finder, "find_distributions", None)
            if find is not None:
                yield from find(ctx)

    def invalidate_caches(self) -> None:
        for finder in self.delegates:
            if hasattr(finder, "invalidate_caches"):
                finder.invalidate_caches()


_FINDER: list[VisibleImports] = []


def install(keep: tuple[str, ...]) -> None:
    """Put the finder in place of every path-based one. ``keep``: ``sys.path`` entries the graded code
    still searches (the prepared dependencies, the workspace); every other entry now on ``sys.path``
    that is not the standard library's is the engine's and hidden from it."""
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    kept = {os.path.realpath(p) for p in keep}

    def engine(real: str) -> bool:
        if real in kept or real.endswith(".zip"):
            return False
        return not (real == stdlib or real.startswith(stdlib + os.sep)) or "-packages" in real

    excluded = frozenset(real for p in sys.path if isinstance(p, str) and p and engine(real := os.path.realpath(p)))
    builtin = [f for f in sys.meta_path if f in (BuiltinImporter, FrozenImporter)]
    delegates = [f for f in sys.meta_path if f not in builtin]
    finder = VisibleImports(delegates, excluded)
    sys.meta_path[:] = [*builtin, finder]
    _FINDER[:] = [finder]


def configure(config: dict) -> None:
    """What the next submission may see: ``config["visible"]`` (top-level module names besides the
    standard library; None grades nothing), ``config["visible_dists"]`` (the distributions whose
    metadata it reads) and ``config["workspace"]``."""
    if _FINDER:
        _FINDER[0].configure(config)
