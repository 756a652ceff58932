"""Runtime of the generated HTTP tests, embedded after ``_runtime.py`` and ``_runtime_fuzz.py`` in
``test_gen_http.py``.

It runs INSIDE the sandbox, never in the engine's process, and must stay self-contained
(standard library, pytest, hypothesis and schemathesis from the engine's read-only environment).
Requests reach the app in-process through schemathesis's ASGI transport: no socket, no network.
What fails: a 5xx, an exception escaping the app, or a response outside the app's own OpenAPI
schema (``docs/adversarial.md``, "HTTP services").
"""

import contextlib
import importlib
import os
import tempfile

import schemathesis
from hypothesis import given, reject
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.core import NOT_SET
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance

TMP_PATH = "<fresh temporary file>"
BOUNDARY_INTEGERS = (0, -1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30)
"""Sent as every integer path and query parameter, besides what the schema generates: ids past
a database's 64-bit range are a classic 500."""
_SERVER_SIDE = (os.sep + "fastapi" + os.sep, os.sep + "starlette" + os.sep)

# Warm once per worker, at collection, before it forks a process per test: schemathesis draws
# strings over the whole of UTF-8, and hypothesis builds that character table on first use
# (about 3 s); a forked test inherits it instead of building it again.
with contextlib.suppress(Exception):
    from hypothesis.internal.charmap import charmap, intervals_from_codec

    charmap()
    intervals_from_codec("utf-8")
# Likewise the modules schemathesis imports lazily on the first schema it loads.
for _module in ("schemathesis.specs.openapi.schemas", "schemathesis.specs.openapi._hypothesis",
                "schemathesis.python.asgi", "schemathesis.transport.asgi", "starlette.testclient"):  # fmt: skip
    with contextlib.suppress(Exception):
        importlib.import_module(_module)


def preload(*modules):
    """Import the app's modules when the worker collects this file, so that each forked test
    inherits them (FastAPI and pydantic take most of a second to import). A module that fails
    to import is left to the tests, which then fail with its error."""
    for module in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(module)


def _materialise(value):
    if not (isinstance(value, dict) and "handle" in value):
        return value
    module, cls, ctor, init = value["handle"]
    fresh = tempfile.mkdtemp(prefix="bouts-gen-")
    kwargs = {k: os.path.join(fresh, k) if v == TMP_PATH else v for k, v in ctor.items()}
    handle = getattr(importlib.import_module(module), cls)(**kwargs)
    for fn_module, fn, param in init:
        getattr(importlib.import_module(fn_module), fn)(**{param: handle})
    return handle


def build_app(recipe):
    """The submission's ASGI app: ``module.attr``, called with its arguments when a factory."""
    obj = getattr(importlib.import_module(recipe["module"]), recipe["attr"])
    if not recipe["call"]:
        return obj
    return obj(**{k: _materialise(v) for k, v in recipe["kwargs"].items()})


def _operation(schema, method, path):
    for result in schema.get_all_operations():
        with contextlib.suppress(Exception):
            op = result.ok()
            if op.method.upper() == method and op.path == path:
                return op
    raise AssertionError(f"{method} {path} is not in the app's OpenAPI schema")


def _request(case):
    parts = [f"{case.method.upper()} {case.formatted_path}"]
    if case.query:
        parts.append(f"query={case.query!r:.120}")
    if case.body is not None and case.body is not NOT_SET:
        parts.append(f"body={case.body!r:.200}")
    return " ".join(parts)


def _boundaries(op):
    """Cases with one integer path or query parameter at a boundary value, the rest generated."""
    out = []
    for p in op.iter_parameters():
        where = {"path": "path_parameters", "query": "query"}.get(getattr(p.location, "value", ""))
        schema = (getattr(p, "definition", None) or {}).get("schema") or {}
        if where and schema.get("type") == "integer":
            out += [op.as_strategy(**{where: {p.name: v}}) for v in BOUNDARY_INTEGERS]
    return out


def _from_the_app(exc):
    """Whether ``exc`` escaped the app (a frame in the submission, FastAPI or Starlette), rather than
    the test's client failing to send the request."""
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if _in_submission(name) or (any(s in name for s in _SERVER_SIDE) and not name.endswith("testclient.py")):  # noqa: F821
            return True
        tb = tb.tb_next
    return False


def http_operation(recipe, method, path, seed_value, max_examples=20):
    """Requests for one operation, valid and invalid ones, generated from the app's OpenAPI
    schema: every answer must be below 500 and match the schema."""
    app = build_app(recipe)
    op = _operation(schemathesis.openapi.from_asgi("/openapi.json", app), method, path)
    branches = [op.as_strategy(GenerationMode.POSITIVE), op.as_strategy(GenerationMode.NEGATIVE)]
    boundaries = _boundaries(op)
    strategy = st.one_of(*branches, *([st.one_of(*boundaries)] if boundaries else []))

    @_bounded(seed_value, max_examples)  # noqa: F821  (defined by _runtime_fuzz.py, embedded above)
    @given(case=strategy)
    def requests(case):
        try:
            response = case.call()
        except Exception as exc:  # the ASGI transport re-raises what escaped the app: a 500 in production
            if not _from_the_app(exc):
                reject()  # the client could not send this request: no verdict on the app
            raise AssertionError(f"server error: {type(exc).__name__}: {exc!s:.200} on {_request(case)}") from None
        if response.status_code >= 500:
            raise AssertionError(f"server error: {response.status_code} on {_request(case)}")
        try:
            case.validate_response(response, checks=[response_schema_conformance])
        except (Failure, FailureGroup) as exc:
            failures = exc.exceptions if isinstance(exc, FailureGroup) else (exc,)
            titles = "; ".join(f"{f.title}: {f.message.splitlines()[0] if f.message else ''}" for f in failures)
            raise AssertionError(
                f"response outside the schema ({response.status_code}: {titles[:200]}) on {_request(case)}"
            ) from None

    requests()
