"""Env workers placed on the CPU node of a two-node Ray cluster by labels or resources (slow).

The cluster is real: ``ray start --head`` (the "trainer" node) plus a second ``ray start
--address`` node labelled ``role=env`` with an ``env_slot`` resource, both on this machine, each
started with ``--block`` in its own process group so the test stops exactly what it started.
The nodes and the driver share a private auth token (``RAY_AUTH_MODE=token``): since Ray 2.5x a
local ``ray.init()`` writes ``~/.ray/auth_token``, after which ``ray start`` turns token auth on
while a driver joining with ``address=`` sends none (the GCS refuses it: "Failed to connect to
Ray cluster"); naming the mode and the token on both sides makes the test independent of it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

from agentgym.policies import FakePolicy
from agentgym.rollout import Engine, EpisodeRequest
from agentgym.rollout.ray_backend import ray_worker_factory

from .servers import free_port

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray")


def _ray_start(*args: str) -> subprocess.Popen:
    exe = shutil.which("ray", path=os.path.dirname(os.sys.executable)) or "ray"
    return subprocess.Popen(
        [exe, "start", "--block", "--disable-usage-stats", *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )


def _reread_auth() -> None:
    """Make this process's Ray core read ``RAY_AUTH_*`` again (Ray's own test helper)."""
    from ray._private.authentication_test_utils import reset_auth_token_state

    reset_auth_token_state()


def _forget_cluster(port: int) -> None:
    """Remove the "current cluster" note ``ray start`` left for our head (``ray stop`` would,
    but it stops every Ray on the machine), so a later bare ``ray.init()`` starts its own."""
    note = os.path.join(tempfile.gettempdir(), "ray", "ray_current_cluster")
    try:
        with open(note) as f:
            ours = f.read().strip().endswith(f":{port}")
        if ours:
            os.unlink(note)
    except OSError:
        pass


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture(scope="module")
def cluster() -> Iterator[dict[str, Any]]:
    """A head node (role=trainer) and an env node (role=env, env_slot=8); yields their ids."""
    with pytest.MonkeyPatch.context() as auth:  # the nodes inherit the token, the driver reads it
        auth.setenv("RAY_AUTH_MODE", "token")
        auth.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
        _reread_auth()  # this process imported ray (and read its config) long ago
        try:
            yield from _two_nodes()
        finally:
            auth.undo()
            _reread_auth()


def _two_nodes() -> Iterator[dict[str, Any]]:
    port = free_port()
    address = f"127.0.0.1:{port}"
    procs = [_ray_start("--head", f"--port={port}", "--num-cpus=1", "--labels=role=trainer",
                        "--include-dashboard=false")]
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                ray.init(address=address, log_to_driver=False)
                break
            except Exception:
                if time.monotonic() > deadline or procs[0].poll() is not None:
                    raise
                time.sleep(1)
        procs.append(_ray_start(f"--address={address}", "--num-cpus=2", "--labels=role=env",
                                '--resources={"env_slot": 8}'))
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            if time.monotonic() > deadline:
                raise TimeoutError("the env node did not join")
            time.sleep(1)
        nodes = {n["Labels"].get("role"): n["NodeID"] for n in ray.nodes() if n["Alive"]}
        yield {"env": nodes["env"], "trainer": nodes["trainer"],
               "driver": ray.get_runtime_context().get_node_id()}
    finally:
        ray.shutdown()
        for proc in reversed(procs):
            _stop(proc)
        _forget_cluster(port)


def _answer(messages, episode):
    text = messages[-1]["content"]
    a, b = (int(x) for x in text.split("Compute ")[1].split(".")[0].split(" + "))
    return str(a + b)


def _run(factory: Any, num_envs: int) -> tuple[list[Any], set[str]]:
    """Play four arith tasks; returns the trajectories and the nodes their env actors ran on."""
    workers = []

    async def recording() -> Any:
        worker = await factory()
        workers.append(worker)
        return worker

    engine = Engine("arith", FakePolicy(_answer), num_envs=num_envs, worker_factory=recording)
    requests = [EpisodeRequest(task_id=t) for t in ("add-2-3", "add-8-4", "add-0-0", "add-9-9")]
    trajs = engine.run(requests)
    nodes = {ray.get(w.actor.node_id.remote()) for w in workers}
    engine.close()
    return trajs, nodes


def test_env_actors_land_on_the_labelled_cpu_node(cluster):
    trajs, nodes = _run(ray_worker_factory("arith", label_selector={"role": "env"}), 3)
    assert [t.reward for t in trajs] == [1.0] * 4
    assert nodes == {cluster["env"]}
    assert cluster["driver"] != cluster["env"]


def test_resources_from_the_environment_place_actors_too(cluster, monkeypatch):
    monkeypatch.setenv("AGENTGYM_RAY_ENV_RESOURCES", "env_slot=1")
    trajs, nodes = _run(ray_worker_factory("arith"), 2)  # what backend="ray" builds
    assert [t.reward for t in trajs] == [1.0] * 4 and nodes == {cluster["env"]}
