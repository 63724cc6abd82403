"""The sandbox wrapper script keeps its side channel when that channel is fd 9 (the fd it saves
stderr on): a run on a thread whose side memfd happened to be fd 9 reported a dead sandbox."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile

import pytest

from agentgym.sandbox import SandboxLimits
from agentgym.sandboxes._script import READY, build_script


@pytest.mark.parametrize("side_fd", [9, 7])
def test_side_channel_survives_whatever_fd_it_is(tmp_path, side_fd: int) -> None:
    script = build_script(SandboxLimits(timeout_s=20), workdir=str(tmp_path / "w"), tar_bytes=0,
                          fetch=["out.txt"], fetch_fd=side_fd, nproc=False,
                          cleanup_before=False, cleanup_after=False, address_space=False)
    read, write = os.pipe()

    def side_channel_as_fd() -> None:  # in the child: the pipe becomes fd ``side_fd``
        os.dup2(write, side_fd)
        os.close(read)

    done = subprocess.run(
        ["sh", "-c", script, "sh", "sh", "-c", "echo to-stderr >&2; echo data > out.txt"],
        preexec_fn=side_channel_as_fd, close_fds=False, capture_output=True, timeout=60)
    os.close(write)
    with os.fdopen(read, "rb") as side:
        channel = side.read()
    assert done.returncode == 0, done.stderr
    assert b"to-stderr" in done.stderr  # the program's stderr reached the real stderr
    assert channel[:1] == READY.encode()
    with tarfile.open(fileobj=io.BytesIO(channel[1:])) as tar:
        member = tar.extractfile("./out.txt")
        assert member is not None and member.read() == b"data\n"
