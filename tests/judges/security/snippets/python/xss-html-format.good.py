# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import html

from flask import Flask, render_template, request

app = Flask(__name__)


@app.get("/hello")
def hello():
    return render_template("hello.html", name=request.args.get("name", ""))


def row(item):
    return f"<tr><td>{html.escape(item.title)}</td></tr>"


def plain(name):
    return f"Hello {name}"
