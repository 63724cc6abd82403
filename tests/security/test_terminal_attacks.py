"""Attacks on the terminal family (bubblewrap backend): tests tampering, reward forgery, stale
reward files, fork and disk bombs, network, escape to host paths, killing the shell.

Each test plays the attack as the agent would (tool calls), then checks that it earned nothing,
left the host alone and did not turn into an ``aborted`` (unscored) episode.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agentgym.envs.terminal.env import TerminalEnv
from agentgym.envs.terminal.probes import FAULTS, PLANT, TAMPER
from agentgym.sandboxes.bubblewrap import bubblewrap_available

pytestmark = pytest.mark.skipif(not bubblewrap_available(), reason="bubblewrap cannot run here")
TASK = "count-error-lines"


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def bash(env, command: str, timeout_s: float = 5) -> tuple[str, dict]:
    obs, reward, terminated, truncated, info = env.step(call("bash", command=command,
                                                             timeout_s=timeout_s))
    assert reward == 0 and not terminated and not truncated and not info.get("aborted"), info
    return obs["text"], info


def submit(env) -> tuple[float, dict]:
    obs, reward, terminated, truncated, info = env.step(call("submit"))
    assert terminated and not info.get("aborted"), info
    return reward, info


@pytest.fixture(scope="module")
def env():
    e = TerminalEnv(split="all", command_timeout_s=5, disk_mb=64)
    yield e
    e.close()


@pytest.mark.parametrize("label, command", PLANT, ids=[p[0] for p in PLANT])
def test_planted_reward_files_are_wiped_before_the_verifier(env, label, command):
    env.reset(options={"task_id": TASK})
    bash(env, command)
    assert "1" in bash(env, "cat /logs/verifier/reward.*")[0]  # it is there...
    reward, info = submit(env)
    assert reward == 0.0, info  # ...and earns nothing: the verifier wrote its own 0


@pytest.mark.parametrize("label, command", TAMPER, ids=[p[0] for p in TAMPER])
def test_writing_where_the_tests_go_changes_nothing(env, label, command):
    env.reset(options={"task_id": TASK})
    assert bash(env, "ls -A /tests | wc -l")[0].startswith("0")  # the tests are not there yet
    bash(env, command)
    assert submit(env)[0] == 0.0


def test_a_verifier_that_writes_nothing_never_reads_a_stale_reward(tmp_path):
    root = tmp_path / "silent"
    files = {"task.toml": "[[steps]]\nname = 'a'\n\n[[steps]]\nname = 'b'\n",
             "environment/Dockerfile": "FROM debian:bookworm\nWORKDIR /app\n",
             "tests/test.sh": "#!/bin/bash\n[ -f /tests/pass ] && echo 1 > "
                              "/logs/verifier/reward.txt\ntrue\n",
             "steps/a/instruction.md": "a", "steps/a/tests/pass": "",
             "steps/b/instruction.md": "b"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    env = TerminalEnv(root, split="all")
    env.reset(options={"index": 0})
    submit_text = env.step(call("submit"))[0]["text"]
    assert "Step 2 of 2" in submit_text  # step a passed, and wrote its reward.txt...
    bash(env, "mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt")
    reward, info = submit(env)
    assert info["step_rewards"] == [1.0, 0.0] and reward == 0.5  # ...step b's is not reused
    assert info["verifier"] == "the verifier wrote no reward file"


@pytest.mark.parametrize("label, command", FAULTS, ids=[p[0] for p in FAULTS])
def test_bombs_and_kills_end_at_the_deadline_and_the_episode_goes_on(env, label, command):
    env.reset(options={"task_id": TASK})
    begin = time.monotonic()
    bash(env, command, timeout_s=3)
    assert time.monotonic() - begin < 3 + 15  # the deadline plus the live shell's slack
    out, _ = bash(env, "echo alive; ls /app")
    assert out.startswith("alive") and "server.log" in out
    # the disk cap holds: each root is a 64 MiB tmpfs, and what a bomb wrote stops there
    sizes = bash(env, "du -sk /app /tmp | cut -f1")[0].split("[exit")[0].split()
    assert all(int(k) <= 64 * 1024 for k in sizes), sizes
    assert len(env.state) < 2 * 64 * 1024 * 1024 + (1 << 20)
    bash(env, "rm -f /app/fill /tmp/fill")  # a full disk stays full (as in a container)
    bash(env, "grep -c ERROR server.log > answer.txt")
    assert submit(env)[0] == 1.0  # a background writer left nothing behind to spoil it


def test_no_network(env):
    env.reset(options={"task_id": TASK})
    out, _ = bash(env, "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), "
                       "timeout=2)\" 2>&1; echo > /dev/tcp/8.8.8.8/53 2>&1; "
                       "ls /sys/class/net 2>&1; cat /proc/net/dev | wc -l")
    assert "Network is unreachable" in out or "unreachable" in out.lower()
    assert "[exit status" in out and "8.8.8.8" not in out.replace("/dev/tcp/8.8.8.8/53", "")


def test_host_paths_are_out_of_reach(env):
    env.reset(options={"task_id": TASK})
    repo = Path(__file__).resolve().parents[2]
    out, _ = bash(env, f"ls {repo} {repo}/envs/terminal/tasks 2>&1; ls -A /root /home 2>&1; "
                       "id -u; ls /proc | grep -c '^[0-9]'")
    assert "No such file or directory" in out and "check.sh" not in out
    assert str(os.getpid()) not in out.split() and "65534" in out  # not root, not the host's
    assert "No such file" in bash(env, "cat /etc/shadow /etc/passwd 2>&1")[0]
    out, _ = bash(env, "ln -s /etc/passwd /app/pw; touch /usr/x 2>&1; mount -t tmpfs x /app 2>&1")
    assert "Read-only file system" in out and "superuser" in out
    # the state comes back as bytes the host never unpacks: a link in it stays in the sandbox
    assert not (Path.cwd() / "pw").exists()


def test_a_huge_command_is_the_agents_error_not_a_dead_sandbox(env):
    """Found by check_rewards' ``huge`` probe: a 200 KB command made bwrap's exec fail with
    E2BIG, which aborted the episode (unscored) instead of answering with an error."""
    env.reset(options={"task_id": TASK})
    for size in (200_000, 2_000_000):
        obs, reward, terminated, truncated, info = env.step(call("bash", command="#" * size))
        assert "Error: command over" in obs["text"] and not info.get("aborted")
        assert not terminated and not truncated
    for name, args in (("read_file", {"path": "/app/" + "p" * 300_000}),
                       ("write_file", {"path": "/app/" + "p" * 300_000, "content": "x"})):
        obs, reward, terminated, truncated, info = env.step(call(name, **args))
        assert "Error: path over" in obs["text"] and not info.get("aborted")
    big = "x" * 60_000  # write_file's own limit is 64 KiB: its base64 still fits one argument
    obs, *_ = env.step(call("write_file", path="/app/big", content=big))
    assert obs["text"].startswith("wrote 60000 bytes")


@pytest.mark.parametrize("body", [
    "import os\nos._exit(0)\n",
    "import os, sys\nprint('5 of 5 passed')\nsys.stdout.flush()\nos._exit(0)\n",
], ids=["exit-0", "print-pass-exit-0"])
def test_an_exported_harbor_task_pays_nothing_for_ending_the_checker_early(tmp_path, body):
    """Found in review: the exported ``test_solution.py`` loads the solution in its own process
    and ``test.sh`` paid on exit status 0 alone, so ``os._exit(0)`` in ``/app/solution.py``
    earned 1 on every exported task."""
    from agentgym.exporters import export_harbor

    env = TerminalEnv(export_harbor("code/py-functions-v1", tmp_path / "code"), split="all")
    try:
        env.reset(options={"index": 0})
        env.step(call("write_file", path="/app/solution.py", content=body))
        reward, info = submit(env)
        assert reward == 0.0, info
    finally:
        env.close()


def test_a_task_folder_under_a_bound_system_path_is_hidden_from_the_agent():
    """Found in review: the sandbox binds ``/usr`` read-only and masked only agentgym's own
    package folders, so a Harbor task kept under ``/usr`` (a system-wide dataset install) showed
    its ``tests/`` and ``solution/`` to the agent's commands."""
    import shutil
    import tempfile

    share = Path("/usr/local/share")
    if not os.access(share, os.W_OK):
        pytest.skip("needs a writable /usr/local/share (root) to place a task under /usr")
    fixture = Path(__file__).resolve().parents[1] / "envs" / "terminal" / "fixtures"
    holder = Path(tempfile.mkdtemp(prefix="agentgym-review-", dir=share))
    holder.chmod(0o755)  # as a system-wide install is: readable by every user
    try:
        task = shutil.copytree(fixture / "harbor-hello", holder / "harbor-hello")
        env = TerminalEnv(task, split="all", command_timeout_s=5)
        try:
            env.reset(options={"index": 0})
            out, _ = bash(env, f"cat {task}/tests/test.sh {task}/solution/solve.sh 2>&1; "
                               f"ls -A {task} | wc -l")
            assert "reward.json" not in out and "Hello" not in out, out
            assert out.split("[exit status")[0].strip().endswith("0"), out  # an empty folder
        finally:
            env.close()
    finally:
        shutil.rmtree(holder)


@pytest.mark.parametrize("task_id, path, content", [
    ("py-fix-kv-parser", "/app/kv.py", "import os\nos._exit(0)\n"),
    ("py-fix-off-by-one", "/app/mathx.py", "import os\nos._exit(0)\n"),
    ("json-config-edit", "/app/json.py", "import os\nos._exit(0)\n"),
    ("systemd-unit", "/app/configparser.py", "import os\nos._exit(0)\n"),
    ("env-file", "/app/.env", "exit 0\n"),
], ids=["module-exits", "module-exits-c", "shadow-json", "shadow-configparser", "env-exits"])
def test_code_the_check_runs_cannot_end_it_early_as_a_pass(env, task_id, path, content):
    """Found in review: bundled checks import the agent's module (or source its ``.env``) in
    the checking process, and ran ``python3 -`` in ``/app`` (its cwd first on ``sys.path``), so
    ``os._exit(0)`` in the module, a planted ``/app/json.py`` or ``exit 0`` in ``.env`` ended
    the check with status 0: reward 1."""
    env.reset(options={"task_id": task_id})
    env.step(call("write_file", path=path, content=content))
    assert submit(env)[0] == 0.0


_PLANT_PY = ("import os, subprocess\nos.makedirs('/logs/verifier', exist_ok=True)\n"
             "open('/logs/verifier/reward.txt', 'w').write('1')\n")
_OUTLIVE = _PLANT_PY + (
    "subprocess.Popen(['bash', '-c', 'while :; do mkdir -p /logs/verifier; "
    "echo 1 > /logs/verifier/reward.txt; done'], start_new_session=True,\n"
    "                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, "
    "stderr=subprocess.DEVNULL)\n")
_KILL_VERIFIER = _PLANT_PY + (
    "for pid in filter(str.isdigit, os.listdir('/proc')):\n"
    "    try:\n        argv = open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\\0')[:2]\n"
    "    except OSError:\n        continue\n"
    "    if argv == [b'bash', b'/tests/test.sh']:\n        os.kill(int(pid), 9)\n")


@pytest.mark.parametrize("program", [_OUTLIVE, _KILL_VERIFIER], ids=["outlive", "kill-test-sh"])
def test_the_agents_program_cannot_rewrite_the_reward_after_the_verifier(env, program):
    """Found in review: a program the verifier runs (here ``/app/avg.py``) wrote ``reward.txt``
    and then either left a detached loop rewriting it after ``test.sh`` wrote its own 0, or
    killed ``test.sh`` before it wrote: both read back as reward 1."""
    env.reset(options={"task_id": "py-fix-average"})
    env.step(call("write_file", path="/app/avg.py", content=program))
    reward, info = submit(env)
    assert reward == 0.0, info
    assert "verifier" in info["verifier"], info  # the reason names what happened


def test_the_other_tasks_of_a_folder_under_a_bound_system_path_are_hidden_too():
    """Found in review: only the episode's own task folder was masked, so with a folder of
    tasks kept under ``/usr`` an episode could read every other task's ``tests/`` and
    ``solution/`` (the held-out split's among them)."""
    import shutil
    import tempfile

    share = Path("/usr/local/share")
    if not os.access(share, os.W_OK):
        pytest.skip("needs a writable /usr/local/share (root) to place tasks under /usr")
    fixture = Path(__file__).resolve().parents[1] / "envs" / "terminal" / "fixtures"
    holder = Path(tempfile.mkdtemp(prefix="agentgym-review-", dir=share))
    holder.chmod(0o755)  # as a system-wide install is: readable by every user
    try:
        for name in ("harbor-hello", "harbor-steps"):
            shutil.copytree(fixture / name, holder / name)
        env = TerminalEnv(holder, split="all", command_timeout_s=5)
        try:
            env.reset(options={"task_id": "harbor-hello"})
            out, _ = bash(env, f"ls -A {holder} | wc -l; cat {holder}/harbor-steps/tests/test.sh"
                               " 2>&1")
            assert out.startswith("0") and "reward" not in out, out
        finally:
            env.close()
    finally:
        shutil.rmtree(holder)


def test_the_live_shells_pid_1_is_out_of_the_agents_reach(env):
    """The live shell's PID 1 (same uid as the agent) reads the host's requests on fd 0 and
    answers on fd 1. Were it dumpable, the agent could open ``/proc/1/fd/1`` and write a forged
    answer (an output, an exit status) the host would read for a later request, or ``fd/0`` and
    queue requests of its own; it could also stop or kill it. None of it works."""
    env.reset(options={"task_id": TASK})
    bash(env, "true")
    live = env._live
    forged = '{"rc": 0, "timed_out": false, "out": 6, "err": 0, "trunc": false}\\nforged'
    out, _ = bash(env, f"printf '{forged}' > /proc/1/fd/1; echo w1=$?; "
                       "printf '{\"op\": \"snap\", \"argv\": [\"true\"], \"max\": 1}\\n' "
                       "> /proc/1/fd/0; echo w0=$?; "
                       "ls /proc/1/fd /proc/1/map_files >/dev/null 2>&1; echo ls=$?; "
                       "kill -STOP 1; kill -9 1; kill -9 -1; echo end")
    # (as root the host's pipes are root's, mode 0600, so opening them fails anyway; from a
    # non-root host only PID 1 being non-dumpable keeps them, and its fd list, closed)
    assert "w1=1" in out and "w0=1" in out and "ls=2" in out, out
    for _ in range(3):  # the answers stay in step: nothing forged was queued
        assert bash(env, "echo real")[0].splitlines()[0] == "real"
    assert env._live is live and live.alive


def test_a_full_disk_cannot_starve_the_live_shell():
    """Found while building the live shell: its tmpfs mounts are RAM in the episode's memory
    cgroup. With 7 mounts of 64 MiB and 256 MiB of memory, filling them all left PID 1 no
    memory: the OOM killer took it, the sandbox died and the episode was aborted (unscored),
    a way for an agent to escape a bad score. The disk now has its own budget."""
    env = TerminalEnv(split="all", command_timeout_s=20, disk_mb=64, memory_mb=256)
    try:
        env.reset(options={"task_id": TASK})
        for d in ("/app", "/tmp", "/root", "/logs", "/solution", "/tests", "/work"):
            bash(env, f"head -c 70M /dev/zero > {d}/fill", timeout_s=20)
        assert bash(env, "echo alive")[0].startswith("alive")
        assert submit(env)[0] == 0.0  # scored (the answer is missing), not aborted
    finally:
        env.close()


@pytest.mark.parametrize("test_sh, want", [
    # a process substitution test.sh does not wait for, still ending as test.sh returns: an
    # honest pass (the slow sweep saw join-files score 0 under load: "outlived it")
    ("diff <(sleep 0.3; echo a) <(echo a) >/dev/null && echo 1 > /logs/verifier/reward.txt\n"
     "(sleep 0.5 &)\n", 1.0),
    # a straggler that rewrites the reward after test.sh wrote 0, then ends within the grace
    ("echo 0 > /logs/verifier/reward.txt\n"
     "(setsid bash -c 'sleep 0.3; echo 1 > /logs/verifier/reward.txt' &)\n", 0.0),
], ids=["slow-exit", "late-forger"])
def test_stragglers_of_the_verifier_neither_fail_nor_forge_it(tmp_path, test_sh, want):
    root = tmp_path / "t"
    files = {"task.toml": "", "instruction.md": "x",
             "environment/Dockerfile": "FROM debian:bookworm\nWORKDIR /app\n",
             "tests/test.sh": "#!/bin/bash\n" + test_sh}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    env = TerminalEnv(root, split="all")
    try:
        env.reset(options={"index": 0})
        reward, info = submit(env)
        assert reward == want, info
    finally:
        env.close()
