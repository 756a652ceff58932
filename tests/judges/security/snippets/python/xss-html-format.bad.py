# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from flask import Flask, request

app = Flask(__name__)


@app.get("/hello")
def hello():
    name = request.args.get("name", "")
    return f"<h1>Hello {name}</h1>"


def row(item):
    return "<tr><td>" + item.title + "</td></tr>"
