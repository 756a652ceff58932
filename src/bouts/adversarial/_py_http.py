"""HTTP apps of the submission and their operations, probed with requests generated from the app's
OpenAPI schema (schemathesis, inside the sandbox): pure, parsed modules in, probes out.

Found: a FastAPI app, either module level (``app = FastAPI(...)``) or created and returned by a
public function (a factory, ``create_app(db)``). Its operations are the routes declared on it in
the source: ``@app.get("/path")``, ``@app.api_route(path, methods=[...])`` and the routes of an
``APIRouter`` it includes. A factory's parameters are filled like a constructor's; an
infrastructure handle (``db: Database``) gets the submission's own simplest implementation of its
type, built with plain values (a path-like parameter gets a fresh temporary file) and passed
through the submission's schema-setup functions (``init_schema(db)``). See docs/adversarial.md,
"HTTP services".
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bouts.adversarial._generate import plain
from bouts.adversarial._model import TMP_PATH, AppRecipe, Entry, HandleRecipe, HttpOperation, Param, Probe, Target
from bouts.adversarial._py_api import SIMPLE_TYPES, Api, is_handle, params_of

METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
APP_CLASSES = frozenset({"FastAPI"})
SETUP_FUNCTION = re.compile(r"^(init|initialise|initialize|create_all|create_schema|create_tables|migrate|setup|"
                            r"bootstrap)")  # fmt: skip
PATH_LIKE = re.compile(r"path|file|filename|dir|directory|location", re.I)
PREFERRED = re.compile(r"memory|fake|sqlite|local|file", re.I)
"""Implementations tried first: they need no server."""
NOT_TYPES = frozenset({"Optional", "Union", "None", "Annotated", "typing", "Any"})


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    handler: str
    """``module:qualname`` of the handler (``bookings.app:create_app.add_room``)."""
    file: str
    line: int
    operation_id: str


def http_probes(api: Api) -> tuple[list[Probe], list[tuple[Target, str]]]:
    """One probe per operation of every FastAPI app found; the operations of an app no test can
    build are skipped with the reason."""
    probes: list[Probe] = []
    skipped: list[tuple[Target, str]] = []
    for module, (rel, tree, _) in sorted(api.modules.items()):
        for app_var, scope, owner in _apps(tree):
            routes = _routes(api, module, rel, scope, app_var, owner)
            recipe, why = _recipe(api, module, owner, app_var)
            for r in routes:
                detail = (f"{r.method} {r.path} (operation {r.operation_id}) of {module}:{owner or app_var}: "
                          "requests generated from the OpenAPI schema; a 5xx or a response outside the schema "
                          "fails")  # fmt: skip
                target = Target("unvalidated_input", r.file, r.line, r.handler, "http", detail)
                if recipe is None:
                    skipped.append((target, why))
                    continue
                op = HttpOperation(r.method, r.path, r.operation_id, recipe)
                probes.append(Probe(target, Entry(module, owner or app_var, ()), None, http=op))
    return probes, skipped


def _is_app(value: ast.AST) -> bool:
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    return (f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "") in APP_CLASSES


def _assigned(body: list[ast.stmt], test: object) -> list[tuple[str, ast.AST]]:
    return [(s.targets[0].id, s.value) for s in body
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
            and test(s.value)]  # type: ignore[operator]  # fmt: skip


def _apps(tree: ast.Module) -> list[tuple[str, ast.AST, str | None]]:
    """(app variable, the scope declaring its routes, the factory's name or None)."""
    found: list[tuple[str, ast.AST, str | None]] = [(name, tree, None) for name, _ in _assigned(tree.body, _is_app)]
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or fn.name.startswith("_"):
            continue
        returned = {n.value.id for n in ast.walk(fn) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
        found += [(name, fn, fn.name) for name, _ in _assigned(fn.body, _is_app) if name in returned]
    return found


def _operation_id(name: str, path: str, method: str) -> str:
    """FastAPI's default operation id (``generate_unique_id``)."""
    return re.sub(r"\W", "_", f"{name}{path}") + f"_{method.lower()}"


def _declared(scope: ast.AST, var: str, prefix: str, rel: str, module: str, qual: str | None) -> list[Route]:
    """Routes declared with decorators on ``var`` among the functions directly in ``scope``."""
    routes: list[Route] = []
    body = scope.body if isinstance(scope, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) else []
    for fn in body:
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for d in fn.decorator_list:
            if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and isinstance(d.func.value, ast.Name)
                    and d.func.value.id == var and d.args and isinstance(d.args[0], ast.Constant)
                    and isinstance(d.args[0].value, str)):  # fmt: skip
                continue
            kw = {k.arg: k.value for k in d.keywords if k.arg}
            if d.func.attr in METHODS:
                methods = [d.func.attr]
            elif d.func.attr == "api_route" and isinstance(kw.get("methods"), ast.List | ast.Tuple):
                methods = [e.value.lower() for e in kw["methods"].elts  # type: ignore[union-attr]
                           if isinstance(e, ast.Constant) and isinstance(e.value, str)]  # fmt: skip
            else:
                continue
            path = prefix + d.args[0].value
            given = kw.get("operation_id")
            handler = f"{module}:{qual}.{fn.name}" if qual else f"{module}:{fn.name}"
            for m in methods:
                op_id = given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) else (
                    _operation_id(fn.name, path, m))
                routes.append(Route(m.upper(), path, handler, rel, fn.lineno, op_id))
    return routes


def _prefix(call: ast.Call) -> str | None:
    for k in call.keywords:
        if k.arg == "prefix":
            return k.value.value if isinstance(k.value, ast.Constant) and isinstance(k.value.value, str) else None
    return ""


def _routes(api: Api, module: str, rel: str, scope: ast.AST, app_var: str, owner: str | None) -> list[Route]:
    """The app's own routes and those of the ``APIRouter``s it includes (literal prefixes only)."""
    routes = _declared(scope, app_var, "", rel, module, owner)
    imports = api.modules[module][2]
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        f = call.func
        if not (isinstance(f, ast.Attribute) and f.attr == "include_router" and isinstance(f.value, ast.Name)
                and f.value.id == app_var and call.args and isinstance(call.args[0], ast.Name)):  # fmt: skip
            continue
        outer = _prefix(call)
        name = call.args[0].id
        where = imports.get(name, f"{module}:{name}")
        router_module, router_var = where.split(":", 1)
        if router_module not in api.modules or outer is None:
            continue
        router_rel, router_tree, _ = api.modules[router_module]
        for var, value in _assigned(router_tree.body, lambda v: isinstance(v, ast.Call)):
            inner = _prefix(value) if var == router_var else None  # type: ignore[arg-type]
            if inner is not None:
                routes += _declared(router_tree, var, outer + inner, router_rel, router_module, None)
    return sorted(routes, key=lambda r: (r.file, r.line, r.method))


def _recipe(api: Api, module: str, owner: str | None, app_var: str) -> tuple[AppRecipe | None, str]:
    if owner is None:
        return AppRecipe(module, app_var, False), ""
    kwargs: list[tuple[str, object]] = []
    for p in api.functions[f"{module}:{owner}"].params:
        if p.has_default:
            continue
        if is_handle(p):
            handle = _handle(api, p)
            if handle is None:
                return None, (f"{owner}() needs {p.name}: {p.annotation or 'an infrastructure handle'}, and the "
                              "submission has no implementation of it a test can build with plain values")  # fmt: skip
            kwargs.append((p.name, handle))
        elif _plain(p):
            kwargs.append((p.name, plain(p)))
        else:
            return None, f"{owner}() needs {p.name}: {p.annotation}, an object the generator cannot build"
    return AppRecipe(module, owner, True, tuple(kwargs)), ""


def _plain(p: Param) -> bool:
    return not p.annotation or bool(SIMPLE_TYPES.match(p.annotation.replace(" ", "")))


def _type_names(annotation: str | None) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", annotation or "")) - NOT_TYPES


def _handle(api: Api, p: Param) -> HandleRecipe | None:
    """The submission's simplest implementation of ``p``'s annotated type, and its setup calls."""
    wanted = _type_names(p.annotation)
    if not wanted:
        return None
    candidates: list[tuple[str, ast.ClassDef]] = []
    for module, (_, tree, _) in api.modules.items():
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef) or cls.name in wanted or cls.name.startswith("_"):
                continue
            bases = {ast.unparse(b).split(".")[-1] for b in cls.bases}
            if bases & wanted or any(cls.name.endswith(w) for w in wanted):
                candidates.append((module, cls))
    for module, cls in sorted(candidates, key=lambda c: (not PREFERRED.search(c[1].name), c[1].name, c[0])):
        ctor = _handle_ctor(cls)
        if ctor is not None:
            init = tuple(
                (fn.module, fn.node.name, fn.params[0].name)
                for fn in sorted(api.functions.values(), key=lambda f: f.key)
                if fn.cls is None and SETUP_FUNCTION.match(fn.node.name)
                and len([q for q in fn.params if not q.has_default]) == 1
                and (_type_names(fn.params[0].annotation) & wanted or fn.params[0].name == p.name)
            )  # fmt: skip
            return HandleRecipe(module, cls.name, ctor, init)
    return None


def _handle_ctor(cls: ast.ClassDef) -> tuple[tuple[str, object], ...] | None:
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    out: list[tuple[str, object]] = []
    for q in params_of(init) if init is not None else []:
        if q.has_default:
            continue
        if PATH_LIKE.search(q.name):
            out.append((q.name, TMP_PATH))
        elif is_handle(q) or not _plain(q):
            return None
        else:
            out.append((q.name, plain(q)))
    return tuple(out)
