# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from flask import Flask

app = Flask(__name__)


@app.get("/")
def index():
    return "hi"
