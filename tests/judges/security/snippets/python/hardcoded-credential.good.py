# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import os

DB_PASSWORD = os.environ["DB_PASSWORD"]
API_KEY = os.environ.get("API_KEY", "")
PASSWORD_FIELD = "password"
token_type = "bearer"


def client():
    return dict(user="admin", password=os.environ["PASSWORD"])
