# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import requests

DB_PASSWORD = "hunter2-prod"
API_KEY = "sk_live_51Habc0123456789"


def client():
    return requests.Session(), dict(user="admin", password="s3cr3t!")
