"""The one registry of extension points: sandbox backends, judges, profiles, trajectory adapters,
test runners. Built-ins register like plugins; a third party adds one through the ``bouts.plugins``
entry-point group (each entry point is a module that registers on import).

    from bouts.registry import sandboxes

    @sandboxes.register("firecracker")
    def make_firecracker() -> Sandbox: ...

Factories, not instances, are registered, so heavy SDKs are imported only when one is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from bouts.errors import InputError

T = TypeVar("T")
ENTRY_POINT_GROUP = "bouts.plugins"


class Registry(Generic[T]):
    """Named factories of one kind of extension."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._factories: dict[str, Callable[[], T]] = {}
        self._docs: dict[str, str] = {}

    def register(self, name: str, doc: str = "") -> Callable[[Callable[[], T]], Callable[[], T]]:
        """Decorator: register ``factory`` under ``name`` (a name registers once)."""

        def decorate(factory: Callable[[], T]) -> Callable[[], T]:
            if name in self._factories and self._factories[name] is not factory:
                raise ValueError(f"{self.kind} '{name}' is already registered")
            self._factories[name] = factory
            doc_lines = (factory.__doc__ or "").strip().splitlines()
            self._docs[name] = doc or (doc_lines[0] if doc_lines else "")
            return factory

        return decorate

    def create(self, name: str, **options: str) -> T:
        """Build the extension named ``name``; an unknown name is the user's error. ``options`` go to
        the factory as keyword arguments (strings, as a setting gives them); a factory that takes
        none, or not these, is told so by name."""
        load_plugins()
        if name not in self._factories:
            raise InputError(f"unknown {self.kind} '{name}'; known: {', '.join(sorted(self._factories))}")
        factory = self._factories[name]
        if options:
            import inspect

            params = inspect.signature(factory).parameters
            takes = sorted(p for p, v in params.items() if v.kind is inspect.Parameter.KEYWORD_ONLY)
            unknown = sorted(set(options) - set(takes))
            if unknown:
                known = f"it takes {', '.join(takes)}" if takes else "it takes none"
                raise InputError(f"{self.kind} '{name}' has no option {', '.join(map(repr, unknown))}; {known}")
            return factory(**options)  # type: ignore[call-arg]
        return factory()

    def names(self) -> list[str]:
        load_plugins()
        return sorted(self._factories)

    def describe(self) -> dict[str, str]:
        """Name → one-line description, for docs and ``bouts plugins``."""
        load_plugins()
        return {name: self._docs.get(name, "") for name in sorted(self._factories)}

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


_loaded = False


def load_plugins() -> None:
    """Import every ``bouts.plugins`` entry point once (they register on import)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ep.load()
