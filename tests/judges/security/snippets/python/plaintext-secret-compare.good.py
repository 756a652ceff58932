# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import hmac

from werkzeug.security import check_password_hash


def login(user, password: str) -> bool:
    if password is None or password == "" or len(password) == 0:
        return False
    return check_password_hash(user.password_hash, password)


def check_api(request, settings) -> bool:
    return hmac.compare_digest(request.headers["X-Api-Key"], settings.api_key)


def usage(event: dict) -> int:
    if event["type"] == "token_count":
        return event["n"]
    return 0
