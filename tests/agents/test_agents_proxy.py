"""The model proxy: forwards only to the configured endpoint with the key the sandbox never sees,
counts tokens and cost, and refuses (and names) every other host."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
from llm_fakes import FakeLLMServer, openai_reply

from bouts.agents import ModelEndpoint, ModelProxy


def _endpoint(url: str, **prices: float) -> ModelEndpoint:
    return ModelEndpoint(base_url=f"{url}/v1", model="m", api_key="sk-only-the-proxy-knows", **prices)


def test_forwards_with_the_key_and_counts_tokens_and_cost(tmp_path: Path) -> None:
    with FakeLLMServer(openai_reply("first"), openai_reply("second")) as server:
        endpoint = _endpoint(server.url, price_in_per_mtok=3.0, price_out_per_mtok=15.0)
        with ModelProxy(endpoint, tmp_path) as proxy:
            for _ in range(2):
                r = httpx.post(f"{proxy.url}/chat/completions", json={"model": "m", "messages": []},
                               headers={"authorization": "Bearer bouts-proxy"}, trust_env=False)  # fmt: skip
                assert r.status_code == 200
            usage, replies = proxy.usage(), proxy.replies()
    assert [q.path for q in server.requests] == ["/v1/chat/completions"] * 2
    assert {q.headers["authorization"] for q in server.requests} == {"Bearer sk-only-the-proxy-knows"}
    assert (usage.requests, usage.tokens_in, usage.tokens_out) == (2, 2000, 400)
    assert usage.cost_usd == (2000 * 3.0 + 400 * 15.0) / 1e6
    assert [r.text for r in replies] == ["first", "second"]


def test_no_price_means_no_cost(tmp_path: Path) -> None:
    with FakeLLMServer(openai_reply("x")) as server, ModelProxy(_endpoint(server.url), tmp_path) as proxy:
        httpx.post(f"{proxy.url}/chat/completions", json={}, trust_env=False)
        assert proxy.usage().cost_usd is None


def _raw(sock_path: Path, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(sock_path))
        s.sendall(request)
        return s.recv(4096)


def test_other_hosts_are_refused_and_named(tmp_path: Path) -> None:
    """Stops: the proxy becoming a way out (CONNECT tunnels, absolute-form requests for another host)."""
    with FakeLLMServer(openai_reply("x")) as server, ModelProxy(_endpoint(server.url), tmp_path) as proxy:
        tunnel = _raw(proxy.socket_path, b"CONNECT collector.example.net:443 HTTP/1.1\r\nHost: x\r\n\r\n")
        plain = _raw(proxy.socket_path, b"GET http://pypi.org/simple/ HTTP/1.1\r\nHost: pypi.org\r\n\r\n")
        other = _raw(proxy.socket_path, b"GET /admin HTTP/1.1\r\nHost: x\r\n\r\n")
        refused = proxy.refused()
    assert tunnel.startswith(b"HTTP/1.1 403") and plain.startswith(b"HTTP/1.1 403")
    assert other.startswith(b"HTTP/1.1 404")
    assert [r.split(" (")[0] for r in refused] == ["connect to collector.example.net:443", "connect to pypi.org"]
    assert server.requests == []  # nothing reached the model endpoint


def test_without_an_endpoint_nothing_is_served(tmp_path: Path) -> None:
    with ModelProxy(None, tmp_path) as proxy:
        r = httpx.post(f"{proxy.url}/chat/completions", json={}, trust_env=False)
    assert r.status_code == 503
