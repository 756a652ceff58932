"""import-linter contract types of this project (``[tool.importlinter] contract_types`` in pyproject.toml).

``front_doors``: a package is entered through its front door. An import from outside a package may
name the package's ``__init__`` and only the names its ``__all__`` lists (or one of its public
modules), never one of its ``_private`` modules. Every import statement counts: at module level,
inside a function, under ``TYPE_CHECKING``. import-linter's own contract types compare modules, not
the names imported from them, hence this one (docs/architecture.md, "Contracts").
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import grimp
from importlinter import Contract, ContractCheck, fields, output


@dataclass(frozen=True, order=True)
class Breach:
    importer: str
    line: int
    target: str
    why: str


def private_owner(module: str) -> str | None:
    """The package a module is private to (``bouts.runner._run`` → ``bouts.runner``), or None."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


class FrontDoorContract(Contract):
    type_name = "front_doors"

    containers = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        breaches: set[Breach] = set()
        for container in self.containers:  # type: ignore[attr-defined]
            root = _package_dir(container.name)
            modules = sorted(m for m in graph.modules if inside(m, container.name))
            surfaces: dict[str, frozenset[str] | None] = {}
            for importer in modules:
                path = _file_of(root, container.name, importer)
                for line, target, names in _imports(path, importer):
                    if not inside(target, container.name):
                        continue
                    owner = private_owner(target)
                    if owner is not None and not inside(importer, owner):
                        breaches.add(Breach(importer, line, target, f"a private module of {owner}"))
                        continue
                    if target not in graph.modules or not names or inside(importer, target):
                        continue
                    init = _file_of(root, container.name, target)
                    if init.name != "__init__.py":
                        continue
                    if target not in surfaces:
                        surfaces[target] = _all_of(init)
                    surface = surfaces[target]
                    for name in names:
                        if f"{target}.{name}" in graph.modules and private_owner(f"{target}.{name}") is None:
                            continue  # a public module of the package
                        if surface is None:
                            breaches.add(Breach(importer, line, target, f"{name}: {target} declares no __all__"))
                        elif name not in surface:
                            breaches.add(Breach(importer, line, target, f"{name} is not in {target}.__all__"))
        return ContractCheck(kept=not breaches, metadata={"breaches": sorted(breaches)})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for b in check.metadata["breaches"]:
            output.print_error(f"{b.importer}:{b.line} imports {b.target}: {b.why}", bold=False)
        output.new_line()


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # a top-level package: located, not imported
    if spec is None or spec.origin is None:
        raise ValueError(f"cannot find the package {name!r}")
    return Path(spec.origin).parent


def _file_of(root: Path, container: str, module: str) -> Path:
    rel = module.split(".")[len(container.split(".")) :]
    base = root.joinpath(*rel)
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _all_of(init: Path) -> frozenset[str] | None:
    """The names a package's ``__init__`` lists in ``__all__`` (a literal list or tuple), or None."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            return frozenset(ast.literal_eval(node.value))
    return None


def _imports(path: Path, module: str) -> list[tuple[int, str, list[str]]]:
    """Every import statement of ``path``: (line, the module imported, the names taken from it)."""
    is_package = path.name == "__init__.py"
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target, [alias.name for alias in node.names if alias.name != "*"]))
    return found
