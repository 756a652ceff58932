# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import hashlib

import bcrypt


def store(user, password: str) -> None:
    user.password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())


def checksum(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
