# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from flask import Flask, request
from flask_wtf.csrf import CSRFProtect

app = Flask(__name__)
csrf = CSRFProtect(app)


@app.route("/transfer", methods=["POST"])
def transfer():
    return request.form["amount"]


@app.get("/account")
def show():
    return "account"
