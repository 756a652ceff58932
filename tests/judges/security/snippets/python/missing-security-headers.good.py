# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from flask import Flask

app = Flask(__name__)


@app.after_request
def security_headers(response):
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "default-src 'self'"
    return response


@app.get("/")
def index():
    return "hi"
