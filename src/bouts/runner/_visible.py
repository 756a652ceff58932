"""The top-level module names graded Python code may import besides the standard library, its own
files and its prepared ``requirements.txt`` (the driver's ``_bouts_driver/imports.py`` enforces it):
the test framework (pytest and hypothesis with what they require; schemathesis, which the generated
HTTP tests import) and the engine packages a challenge declares in ``[tests] engine_packages``.
Read from the engine environment's installed distributions (``importlib.metadata``)."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from bouts.errors import ChallengeError

FRAMEWORK = ("pytest", "hypothesis")
"""The test framework: these distributions and everything they require (extras left out)."""
FRAMEWORK_ALONE = ("schemathesis",)
"""Imported by the generated HTTP tests; what it requires is reached from its own code, not the tests'."""


@functools.cache
def _modules_of() -> dict[str, frozenset[str]]:
    """Distribution name (normalised) → its top-level module names."""
    from importlib.metadata import packages_distributions

    out: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            out.setdefault(_norm(dist), set()).add(module)
    return {k: frozenset(v) for k, v in out.items()}


def _norm(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def _closure(roots: Iterable[str]) -> set[str]:
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = [_norm(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        seen.add(name)
        for line in requires:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_norm(req.name))
    return seen


@functools.cache
def framework_distributions() -> frozenset[str]:
    """The test framework's distributions (normalised names)."""
    return frozenset(_closure(FRAMEWORK) | {_norm(d) for d in FRAMEWORK_ALONE})


@functools.cache
def framework_modules() -> frozenset[str]:
    """The test framework's top-level module names (cached: the environment does not change under us)."""
    modules = _modules_of()
    return frozenset(m for d in framework_distributions() for m in modules.get(d, ()))


def visible_distributions(engine_packages: Iterable[str] = ()) -> list[str]:
    """The distributions whose metadata graded code reads: the framework's and the declared ones."""
    return sorted(framework_distributions() | {_norm(name) for name in engine_packages})


def visible_modules(engine_packages: Iterable[str] = ()) -> list[str]:
    """Framework modules plus the top-level modules of each declared engine package. Raises
    ``ChallengeError`` naming ``challenge.toml`` and ``tests.engine_packages`` for a package the
    engine's environment does not hold."""
    modules = _modules_of()
    out = set(framework_modules())
    missing = [name for name in engine_packages if _norm(name) not in modules]
    if missing:
        raise ChallengeError(
            f"not installed in the engine's environment: {', '.join(missing)} (declare other dependencies "
            "in requirements.txt, pinned)", file="challenge.toml", field="tests.engine_packages",
        )  # fmt: skip
    for name in engine_packages:
        out |= modules[_norm(name)]
    return sorted(out)
