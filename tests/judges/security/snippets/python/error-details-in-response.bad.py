# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import traceback

from flask import Flask, jsonify

app = Flask(__name__)


@app.post("/orders")
def create_order():
    try:
        return jsonify(place())
    except Exception as exc:
        return jsonify(error=str(exc)), 500


@app.errorhandler(500)
def crash(err):
    return traceback.format_exc(), 500


def place():
    return {}
