# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import os

from flask import Flask, request, send_file

app = Flask(__name__)
BASE = "/srv/files"


@app.route("/download")
def download():
    name = request.args.get("name")
    return send_file(os.path.join(BASE, name))


@app.route("/read")
def read():
    with open(request.args["path"]) as fh:
        return fh.read()
