# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from flask import Flask, request

app = Flask(__name__)


@app.route("/transfer", methods=["GET", "POST"])
def transfer():
    return request.form["amount"]


@app.delete("/account")
def close():
    return "closed"
