# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import hashlib


def store(user, password: str) -> None:
    user.password_hash = hashlib.md5(password.encode()).hexdigest()


def hash_password(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()
