"""``exited_within``: how every sandbox run waits for its command, woken by a pidfd (or, without
pidfds, by Popen's own polling); either way a command that ends is reaped, one that does not is
left running for the caller to kill."""

from __future__ import annotations

import os
import subprocess

import pytest

from bouts.sandbox._base import exited_within


@pytest.fixture(params=["pidfd", "polling"])
def waiting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "polling":

        def no_pidfds(pid: int) -> int:
            raise OSError(38, "Function not implemented")

        monkeypatch.setattr(os, "pidfd_open", no_pidfds)
    return request.param


def test_a_command_that_ends_is_reaped_with_its_status(waiting: str) -> None:
    proc = subprocess.Popen(["/bin/sh", "-c", "sleep 0.2; exit 3"])
    assert exited_within(proc, 60.0)
    assert proc.returncode == 3


def test_a_command_past_its_time_is_left_running_for_the_caller(waiting: str) -> None:
    proc = subprocess.Popen(["/bin/sleep", "60"])
    try:
        assert not exited_within(proc, 0.3)
        assert proc.poll() is None  # not reaped, not killed: the caller kills its group
    finally:
        proc.kill()
        proc.wait()


def test_a_command_that_already_ended_is_seen_at_once(waiting: str) -> None:
    proc = subprocess.Popen(["/bin/true"])
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # a zombie now, not reaped yet
    assert exited_within(proc, 0.0)
    assert proc.returncode == 0
