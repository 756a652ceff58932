# ruff: noqa  -- deliberately vulnerable or minimal snippet for a Semgrep rule test
import os
import subprocess


def archive(name: str) -> None:
    subprocess.run(f"tar czf /tmp/{name}.tgz data", shell=True, check=True)


def ping(host: str) -> int:
    return os.system("ping -c 1 " + host)
