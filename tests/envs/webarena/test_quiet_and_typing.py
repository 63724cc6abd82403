"""A model typing into something that is not a text box gets an error observation; a web env
is quiet: one line when the sites start, nothing when they are reused, nothing at exit (an env
left open included), and Ctrl-C in ``agentgym play`` prints one line."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agentgym
from agentgym.envs.webarena.sites.server import stop_sites

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("needs_chromium")]

UNCLOSED = """
import agentgym
env = agentgym.make("webarena-lite", split="test")
obs, info = env.reset(options={"task_id": "0"})
env.step("click [5]")
print("done")
"""


@pytest.mark.usefixtures("site_server")
def test_typing_into_a_link_or_button_is_an_error_observation():
    env = agentgym.make("webarena-lite", split="test")
    try:
        obs, _ = env.reset(options={"task_id": "0"})
        url = obs["text"].split("URL: ", 1)[1].split("\n", 1)[0]
        for role in ("link 'One Stop Market'", "button 'Search'", "heading 'Welcome"):
            element = obs["text"].split(f"] {role}")[0].rsplit("[", 1)[1]
            obs, reward, terminated, _, info = env.step(f"type [{element}] [bird feeder] [1]")
            assert info["error"].startswith(f"type [{element}]: [{element}] is a <"), info
            assert "not a text box" in obs["text"] and reward == 0.0 and not terminated
            assert f"URL: {url}\n" in obs["text"]  # nothing was clicked
        for action in ("fill('{box}', 'bird feeder')", "type [{box}] [bird feeder] [1]"):
            box = obs["text"].split("] searchbox 'Search'")[0].rsplit("[", 1)[1]
            obs, _, _, _, info = env.step(action.format(box=box))
            assert "error" not in info, info
        assert "search?q=bird+feeder" in obs["text"]
    finally:
        env.close()


def _run(code: str, runtime: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENTGYM_WEBARENA_RUNTIME": str(runtime)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)


def test_an_env_left_open_says_one_line_when_sites_start_and_nothing_else(tmp_path):
    runtime = tmp_path / "sites"
    try:
        first = _run(UNCLOSED, runtime)
        assert first.returncode == 0 and first.stdout == "done\n", first.stderr
        lines = first.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("started the WebArena sites server"), lines
        assert "--stop --runtime" in lines[0] and "30 min" in lines[0]
        again = _run(UNCLOSED, runtime)  # the same sites, reused
        assert again.returncode == 0 and again.stderr == "", again.stderr
    finally:
        stop_sites(runtime)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("when", ["reset", "prompt"])
def test_ctrl_c_in_play_is_one_line(tmp_path, when):
    runtime = tmp_path / "sites"
    env = {**os.environ, "AGENTGYM_WEBARENA_RUNTIME": str(runtime), "COLUMNS": "100"}
    proc = subprocess.Popen([sys.executable, "-m", "agentgym.cli", "play", "webarena-lite"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, preexec_fn=_default_sigint)
    marker = b"stop [" if when == "reset" else b"action (turn 1/"  # instructions, then prompt
    seen, deadline = b"", time.monotonic() + 180
    try:
        while marker not in seen and time.monotonic() < deadline:
            if select.select([proc.stdout], [], [], 1)[0]:
                seen += os.read(proc.stdout.fileno(), 65536)
        assert marker in seen, seen[-500:]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130
        lines = [line for line in err.decode().splitlines()
                 if not line.startswith("started the WebArena sites server")]
        assert lines == ["error: interrupted (Ctrl-C)"], err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
        stop_sites(runtime)
