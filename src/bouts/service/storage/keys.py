"""API keys: ``bk_<key_id>_<secret>``. The key id finds the row; the secret is checked against a
salted scrypt hash (stdlib ``hashlib.scrypt``), so a stolen database yields no usable key."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import NamedTuple

PREFIX = "bk"
# Keys carry 256 random bits, so the hash need not resist guessing the way a password hash must;
# scrypt at a modest cost still makes a leaked table useless, and keeps a request's check ~10 ms.
_N, _R, _P = 2**12, 8, 1


class ParsedKey(NamedTuple):
    key_id: str
    secret: str


def new_key() -> tuple[str, str, str]:
    """A fresh key: (plaintext, key_id, stored hash)."""
    key_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    return f"{PREFIX}_{key_id}_{secret}", key_id, hash_secret(secret)


def key_from_plaintext(plaintext: str) -> tuple[str, str]:
    """(key_id, stored hash) of an operator-chosen key in the ``bk_<id>_<secret>`` form."""
    parsed = parse_key(plaintext)
    if parsed is None:
        raise ValueError("an API key has the form bk_<16 hex>_<secret of 20+ characters>")
    return parsed.key_id, hash_secret(parsed.secret)


def parse_key(plaintext: str) -> ParsedKey | None:
    parts = plaintext.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != PREFIX or len(parts[1]) != 16 or len(parts[2]) < 20:
        return None
    if not all(c in "0123456789abcdef" for c in parts[1]):
        return None
    return ParsedKey(parts[1], parts[2])


def hash_secret(secret: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def verify_secret(secret: str, stored: str) -> bool:
    try:
        algo, n, r, p, salt, digest = stored.split("$")
        if algo != "scrypt":
            return False
        got = hashlib.scrypt(secret.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32)
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(got.hex(), digest)
