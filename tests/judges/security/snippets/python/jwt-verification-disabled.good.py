# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import jwt


def current_user(token: str, key: str) -> dict:
    return jwt.decode(token, key, algorithms=["HS256"])
