# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import random
import string


def make_reset_token() -> str:
    return "".join(random.choice(string.ascii_letters) for _ in range(32))


def new_user():
    session_id = random.getrandbits(64)
    return session_id
