"""The exported OpenEnv folder's Dockerfile, built offline by a real Docker engine.

``agentgym export openenv arith DIR --wheel``, then ``docker build --network none`` from the
local ``agentgym-sandbox:py3`` base (the ``docker_engine`` fixture starts dockerd and builds it),
the container started with a bearer token (``--network host``: the project's dockerd runs with
``--bridge=none``), and openenv-core's own ``GenericEnvClient`` (in ``.venv-openenv``) playing
episodes whose rewards equal ``agentgym.make``'s, and so does agentgym's importer started on
the image (``make("openenv:<image>")``: its own container, removed at close). Slow: the build
takes minutes on the vfs storage driver.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import pytest

import agentgym
from agentgym.exporters import export_openenv

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from serve.servers import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PEER_PYTHON = ROOT / ".venv-openenv" / "bin" / "python"

# openenv-core 0.3.0's client takes no headers: the same client, its socket opened with one.
CLIENT = """
import functools, json, sys
import openenv.core.env_client as ec
from openenv.core.generic_client import GenericEnvClient
ec.ws_connect = functools.partial(
    ec.ws_connect, additional_headers={"Authorization": "Bearer " + sys.argv[2]})
out = []
with GenericEnvClient(base_url=sys.argv[1]).sync() as env:
    for seed, reply in json.loads(sys.argv[3]):
        first = env.reset(seed=seed).observation
        result = env.step({"content": reply})
        out.append([first["text"], result.reward, result.done])
print(json.dumps(out))
"""

def _wait_healthy(url: str, token: str, timeout_s: float) -> None:
    """Poll ``/health`` with the token until it answers 200."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", headers={"Authorization": f"Bearer {token}"},
                         timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not come up within {timeout_s}s")


pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400), pytest.mark.skipif(
    not PEER_PYTHON.exists(), reason="no .venv-openenv (scripts/setup_openenv_venv.sh)")]


def test_the_exported_dockerfile_builds_offline_and_serves_openenvs_client(
        docker_engine: None, tmp_path: Path) -> None:
    folder = export_openenv("arith", tmp_path / "arith", wheel=True)
    tag = f"agentgym-openenv-test:{uuid.uuid4().hex[:12]}"
    built = subprocess.run(["docker", "build", "--network", "none", "-q", "-f",
                            "server/Dockerfile", "-t", tag, "."], cwd=folder,
                           capture_output=True, text=True, timeout=1500)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    token, port, name = secrets.token_urlsafe(24), free_port(), f"agentgym-oe-{uuid.uuid4().hex}"
    try:
        # without a token the container refuses to serve on 0.0.0.0
        refused = subprocess.run(["docker", "run", "--rm", "--network", "none", tag],
                                 capture_output=True, text=True, timeout=300)
        assert refused.returncode != 0 and "AGENTGYM_SERVE_TOKEN" in refused.stderr
        subprocess.run(["docker", "run", "-d", "--name", name, "--network", "host", "-e",
                        f"PORT={port}", "-e", f"AGENTGYM_SERVE_TOKEN={token}", tag],
                       check=True, capture_output=True, timeout=120)
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, token, 180)
        own = agentgym.make("arith", split="test")
        plays, expected = [], []
        for seed in (0, 1, 2):
            own.reset(seed=seed)
            reply = f"<answer>{own.unwrapped.task.data['answer'] + seed % 2}</answer>"
            plays.append([seed, reply])
            expected.append([own.unwrapped.task.prompt, own.step(reply)[1], True])
        own.close()
        wrong = subprocess.run([str(PEER_PYTHON), "-c", CLIENT, url, "not-the-token",
                                json.dumps(plays[:1])], capture_output=True, text=True,
                               timeout=300)
        assert wrong.returncode != 0  # the token is checked
        done = subprocess.run([str(PEER_PYTHON), "-c", CLIENT, url, token, json.dumps(plays)],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout.strip().splitlines()[-1]) == expected
        assert [e[1] for e in expected] == [1.0, 0.0, 1.0]
        # agentgym's own importer runs the image itself: openenv:<image>
        imported = agentgym.make(f"openenv:{tag}", split="test")
        container = imported.unwrapped.container.name
        got = []
        for seed, reply in plays:
            obs, _ = imported.reset(seed=seed)
            got.append([obs["text"], imported.step(reply)[1], True])
        imported.close()
        assert got == expected
        left = subprocess.run(["docker", "ps", "-aq", "--filter", f"name={container}"],
                              capture_output=True, text=True, timeout=60)
        assert left.stdout.strip() == ""  # the env's container went with it
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=120)
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=300)


def test_an_image_the_engine_does_not_have_is_a_config_error(docker_engine: None) -> None:
    from agentgym.errors import ConfigError

    with pytest.raises(ConfigError, match="never pulled"):
        agentgym.make("openenv:agentgym-no-such-image:0")
