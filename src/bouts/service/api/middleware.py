"""One ASGI middleware around the whole app (outermost, so it covers every response, 500s included):

- a request id on every response (``X-Request-ID``), in every log line written while the request
  is answered (``bouts.service.logs``), and in the log line of any failure;
- each request counted and timed by route template (``bouts_http_requests``, ``bouts.service.metrics``);
- security headers on every response (CSP, nosniff, frame denial, referrer policy, ...);
- request bodies capped while they stream: past the cap the request ends with 413, nothing stored;
- an unhandled exception becomes a generic 500 naming the request id; the trace goes to the log only.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

from bouts.service import logs, metrics

log = logging.getLogger("bouts.service.api")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SECURITY_HEADERS: dict[str, str] = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # never sent to another site; a same-origin form keeps its Origin
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    "cache-control": "no-store",
}


class _BodyTooLarge(HTTPException):
    """An HTTPException so that FastAPI's body parsing lets it through as a 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than {limit} bytes")


class ServiceMiddleware:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        token = logs.request_id.set(request_id)
        began = time.perf_counter()
        status = [500]
        try:
            await self._handle(scope, receive, send, request_id, status)
        finally:
            logs.request_id.reset(token)
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            metrics.http_request(str(scope.get("method", "")), route, status[0], time.perf_counter() - began)

    async def _handle(self, scope: Scope, receive: Receive, send: Send, request_id: str, status: list[int]) -> None:
        started = False
        extra = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
        extra.append((b"x-request-id", request_id.encode()))

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                status[0] = int(message["status"])
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [h for h in extra if h[0] not in present]
            await send(message)

        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await _send_json(send_with_headers, 413, _too_large(self.max_body_bytes, request_id))
            return
        received = 0

        async def capped_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise _BodyTooLarge(self.max_body_bytes)
            return message

        try:
            await self.app(scope, capped_receive, send_with_headers)
        except _BodyTooLarge:
            if not started:
                await _send_json(send_with_headers, 413, _too_large(self.max_body_bytes, request_id))
        except Exception:
            log.exception("unhandled error, request %s %s %s", request_id, scope.get("method"), scope.get("path"))
            if not started:
                body = {"detail": "internal server error", "request_id": request_id}
                await _send_json(send_with_headers, 500, body)


def _too_large(limit: int, request_id: str) -> dict[str, object]:
    return {"detail": f"request body is larger than {limit} bytes", "field": "archive", "request_id": request_id}


def _content_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", []):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_json(send: Send, status: int, body: dict[str, object]) -> None:
    payload = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    if status == 413:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
