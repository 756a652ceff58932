# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import logging

from flask import Flask, jsonify

app = Flask(__name__)
log = logging.getLogger(__name__)


@app.post("/orders")
def create_order():
    try:
        return jsonify(place())
    except Exception:
        log.exception("order failed")
        return jsonify(error="internal error"), 500


def parse(text):
    try:
        return int(text)
    except ValueError as exc:
        raise RuntimeError("bad number") from exc


def place():
    return {}
