# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
from flask import Flask

app = Flask(__name__)

if __name__ == "__main__":
    app.run(host="0.0.0.0", debug=True)
