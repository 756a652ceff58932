# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import os
import subprocess


def archive(name: str) -> None:
    subprocess.run(["tar", "czf", f"/tmp/{name}.tgz", "data"], check=True)


def clear() -> int:
    return os.system("clear")
