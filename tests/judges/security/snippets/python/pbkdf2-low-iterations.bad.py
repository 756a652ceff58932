# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import hashlib
import os


def hash_pw(pw: str) -> bytes:
    salt = os.urandom(16)
    return hashlib.pbkdf2_hmac("sha256", pw.encode(), salt, 1000)
