"""The model proxy: the one way out of an agent's sandbox, and the meter of what the model cost.

The engine runs it on the host for the length of one agent run. It listens on a unix socket (bound
read-only into the sandbox, where the in-sandbox forwarder reaches it) and on a loopback TCP port
(for a harness whose model client runs in the engine). It forwards ``/v1/...`` requests to the one
configured OpenAI-compatible endpoint, with the configured API key (the sandbox never sees the key),
and counts every reply's tokens and their cost. Anything else (``CONNECT host:port``, a request for
another host, another path) is refused and kept as a network attempt: the agent's commands get
``HTTP(S)_PROXY`` pointing here, so an ordinary client trying to reach another host is stopped here
and named. See docs/agents.md#the-model-proxy.
"""

from __future__ import annotations

import contextlib
import json
import os
import socketserver
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bouts.agents._models import ModelEndpoint, ModelReply, Usage

MAX_BODY = 32 << 20
"""Largest request the proxy forwards (a whole conversation fits many times over)."""


@dataclass
class _Meter:
    """What went through the proxy; written by handler threads under ``lock``."""

    endpoint: ModelEndpoint | None
    """None: no model is served here (every request is refused)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    replies: list[ModelReply] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    def refuse(self, evidence: str) -> None:
        with self.lock:
            if evidence not in self.refused:
                self.refused.append(evidence)

    def count(self, body: bytes) -> None:
        tokens_in, tokens_out, text = _reply_usage(body)
        with self.lock:
            self.requests += 1
            self.tokens_in += tokens_in
            self.tokens_out += tokens_out
            self.replies.append(ModelReply(t=time.monotonic(), text=text, tokens_in=tokens_in, tokens_out=tokens_out))


def _reply_usage(body: bytes) -> tuple[int, int, str]:
    """(prompt tokens, completion tokens, assistant text) of a chat-completions or responses reply,
    or of an event stream's chunks; zeros when the reply says nothing."""
    docs: list[Any] = []
    text = body.decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        with contextlib.suppress(json.JSONDecodeError):
            docs.append(json.loads(text))
    else:  # server-sent events: "data: {...}" lines
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                try:
                    docs.append(json.loads(line[5:]))
                except json.JSONDecodeError:
                    continue
    tokens_in = tokens_out = 0
    parts: list[str] = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        usage = doc.get("usage") or {}
        tokens_in = int(usage.get("prompt_tokens") or usage.get("input_tokens") or 0) or tokens_in
        tokens_out = int(usage.get("completion_tokens") or usage.get("output_tokens") or 0) or tokens_out
        for choice in doc.get("choices") or []:
            message = choice.get("message") or choice.get("delta") or {}
            if isinstance(message.get("content"), str):
                parts.append(message["content"])
    return tokens_in, tokens_out, "".join(parts)


def _handler(meter: _Meter) -> type[BaseHTTPRequestHandler]:
    endpoint = meter.endpoint

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _refuse(self, target: str) -> None:
            meter.refuse(f"connect to {target} (refused by the model proxy: not the model endpoint)")
            self.close_connection = True
            self._answer(403, b'{"error": {"message": "bouts: only the model endpoint is reachable"}}')

        def do_CONNECT(self) -> None:  # noqa: N802 (http.server's naming)
            self._refuse(self.path[:200])

        def _forward(self) -> None:
            if "://" in self.path:  # absolute form: a client using us as a proxy for some host
                self._refuse(urlsplit(self.path).netloc[:200] or self.path[:200])
                return
            if not self.path.startswith("/v1/"):
                self._answer(404, b'{"error": {"message": "bouts: the model endpoint is under /v1/"}}')
                return
            try:
                length = int(self.headers.get("content-length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                self._answer(413, b'{"error": {"message": "bouts: no or too large a content-length"}}')
                return
            data = self.rfile.read(length) if length else b""
            if endpoint is None:
                self._answer(503, b'{"error": {"message": "bouts: no model endpoint is served in this sandbox"}}')
                return
            import httpx

            headers = {"content-type": self.headers.get("content-type", "application/json")}
            if endpoint.api_key:
                headers["authorization"] = f"Bearer {endpoint.api_key}"
            try:
                with httpx.Client(timeout=endpoint.timeout_s, trust_env=False) as client:
                    url = endpoint.base_url.rstrip("/") + self.path[3:]
                    reply = client.request(self.command, url, content=data, headers=headers)
            except httpx.HTTPError as exc:
                self._answer(502, json.dumps({"error": {"message": f"bouts: model endpoint: {exc}"}}).encode())
                return
            if reply.status_code < 400:
                meter.count(reply.content)
            self._answer(reply.status_code, reply.content, reply.headers.get("content-type", "application/json"))

        do_POST = _forward  # noqa: N815
        do_GET = _forward  # noqa: N815

        def log_message(self, *args: object) -> None:
            pass

        def address_string(self) -> str:  # unix-socket peers have no address
            return "sandbox"

    return Handler


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a peer that hangs up or sends garbage is the sandbox's business, not the engine's stderr


class _TcpServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass


class ModelProxy:
    """Start with ``with ModelProxy(endpoint, socket_dir) as proxy:``; read the meter afterwards."""

    SOCKET_NAME = "model.sock"

    def __init__(self, endpoint: ModelEndpoint | None, socket_dir: Path) -> None:
        self.meter = _Meter(endpoint)
        handler = _handler(self.meter)
        self.socket_path = socket_dir / self.SOCKET_NAME
        self._unix = _UnixServer(str(self.socket_path), handler)
        # The sandbox runs as another uid (a fresh one per run under a root engine): let it connect.
        os.chmod(self.socket_path, 0o777)
        os.chmod(socket_dir, 0o755)
        self._tcp = _TcpServer(("127.0.0.1", 0), handler)
        self._threads = [threading.Thread(target=s.serve_forever, args=(0.05,), daemon=True)
                         for s in (self._unix, self._tcp)]  # fmt: skip

    @property
    def url(self) -> str:
        """The OpenAI base URL a host-side model client uses (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self._tcp.server_port}/v1"

    def __enter__(self) -> ModelProxy:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for server in (self._unix, self._tcp):
            server.shutdown()
            server.server_close()

    def usage(self) -> Usage:
        """Requests, tokens and cost so far."""
        m = self.meter
        with m.lock:
            cost = m.endpoint.cost(m.tokens_in, m.tokens_out) if m.endpoint is not None else None
            return Usage(requests=m.requests, tokens_in=m.tokens_in, tokens_out=m.tokens_out, cost_usd=cost)

    def replies(self) -> list[ModelReply]:
        with self.meter.lock:
            return list(self.meter.replies)

    def refused(self) -> list[str]:
        with self.meter.lock:
            return list(self.meter.refused)
