"""Keeping ``/openapi.json`` true to what the service does (schemathesis checks it:
``tests/service/test_service_fuzz.py``). FastAPI derives part of the document from the code and
gets two things wrong for this service, which are fixed here:

- Security: every route reads an optional key (the caller may be the public), so FastAPI marks
  every route as needing one. A route that admits the public gets the empty requirement ``{}``
  besides the key schemes (OpenAPI's way to say "optional"); a route behind ``deps.require`` keeps
  only the schemes.
- ``405 Method Not Allowed``: Starlette's answer lists only the methods of the first route whose
  path matched; ``allowed_methods`` lists every method the path has, as ``Allow`` must.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.routing import Match


def requires_key(dependant: Dependant) -> bool:
    """Whether a route's dependencies include a ``deps.require`` role check."""
    return any(getattr(d.call, "requires_key", False) or requires_key(d) for d in dependant.dependencies)


def openapi_document(app: FastAPI, routers: Sequence[APIRouter]) -> dict[str, Any]:
    """The OpenAPI document with optional security on the public routes of ``routers`` (the ones
    ``create_app`` includes; cached on the app)."""
    if app.openapi_schema:
        return app.openapi_schema
    document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    for route in (r for router in routers for r in router.routes):
        if not isinstance(route, APIRoute) or not route.include_in_schema or requires_key(route.dependant):
            continue
        path = document.get("paths", {}).get(route.path_format, {})
        for method in route.methods:
            operation = path.get(method.lower())
            if operation is not None and operation.get("security") and {} not in operation["security"]:
                operation["security"] = [{}, *operation["security"]]
    app.openapi_schema = document
    return document


def allowed_methods(app: FastAPI, scope: dict[str, Any]) -> list[str]:
    """Every method some route serves at the request's path."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches({**scope, "method": "__none__"})
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)
