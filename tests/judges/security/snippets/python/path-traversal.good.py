# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import os
from pathlib import Path

from flask import Flask, abort, request, send_from_directory
from werkzeug.utils import secure_filename

app = Flask(__name__)
BASE = "/srv/files"


@app.route("/download")
def download():
    name = secure_filename(request.args.get("name", ""))
    return send_from_directory(BASE, name)


@app.route("/read")
def read():
    path = os.path.realpath(os.path.join(BASE, os.path.basename(request.args["path"])))
    with open(path) as fh:
        return fh.read()


@app.route("/open")
def open_checked():
    target = (Path(BASE) / os.path.basename(request.args["p"])).resolve()
    if not target.is_relative_to(BASE):
        abort(404)
    return target.read_text()
