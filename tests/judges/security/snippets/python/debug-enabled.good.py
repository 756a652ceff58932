# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import os

from flask import Flask

app = Flask(__name__)

if __name__ == "__main__":
    app.run(debug=os.environ.get("FLASK_DEBUG") == "1")
