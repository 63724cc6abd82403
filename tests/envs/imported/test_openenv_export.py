"""``agentgym export openenv``: the folder has OpenEnv's layout and its server plays the env
with agentgym's rewards, through agentgym's ``openenv:`` client and openenv-core's own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import agentgym
from agentgym import ConfigError
from agentgym.exporters import export_openenv

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from serve.servers import free_port, stop, wait_healthy  # noqa: E402

PEER_PYTHON = Path(__file__).resolve().parents[3] / ".venv-openenv" / "bin" / "python"


def _serve(folder: Path, **env: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "server.app:app", "--host", "127.0.0.1", "--port",
         str(port)], cwd=folder, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    return proc, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    folder = export_openenv("arith", tmp_path_factory.mktemp("export") / "arith")
    proc, url = _serve(folder)
    try:
        wait_healthy(url + "/health", 120)
        yield folder, url
    finally:
        stop(proc)


def test_the_folder_has_openenvs_layout(exported: tuple[Path, str]) -> None:
    folder, _ = exported
    manifest = yaml.safe_load((folder / "openenv.yaml").read_text())
    assert manifest == {"spec_version": 1, "name": "agentgym-arith-add-v0", "type": "space",
                        "runtime": "fastapi", "app": "server.app:app", "port": 8000}
    for rel in ("server/app.py", "server/Dockerfile", "pyproject.toml", "README.md"):
        assert (folder / rel).is_file(), rel
    docker = (folder / "server" / "Dockerfile").read_text()
    assert "ARG BASE_IMAGE=agentgym-sandbox:py3" in docker and "--find-links /wheels" in docker


def test_the_exported_server_pays_what_agentgym_pays(exported: tuple[Path, str]) -> None:
    _, url = exported
    remote = agentgym.make(f"openenv:{url}")
    own = agentgym.make("arith", split="test")
    try:
        for seed, right in ((0, True), (1, False), (2, True)):
            obs, _ = remote.reset(seed=seed)
            own.reset(seed=seed)
            assert obs["text"] == own.unwrapped.task.prompt
            answer = own.unwrapped.task.data["answer"] + (0 if right else 1)
            got = remote.step(f"<answer>{answer}</answer>")
            expected = own.step(f"<answer>{answer}</answer>")
            assert got[1] == expected[1] == (1.0 if right else 0.0) and got[2]
    finally:
        remote.close()
        own.close()


@pytest.mark.skipif(not PEER_PYTHON.exists(), reason="no .venv-openenv")
def test_openenv_cores_own_client_plays_the_export(exported: tuple[Path, str]) -> None:
    _, url = exported
    code = ("import sys; from openenv.core.generic_client import GenericEnvClient\n"
            "with GenericEnvClient(base_url=sys.argv[1]).sync() as env:\n"
            "    obs = env.reset(seed=0).observation\n"
            "    print(env.step({'content': sys.argv[2]}).reward)")
    own = agentgym.make("arith", split="test")
    own.reset(seed=0)
    answer = f"<answer>{own.unwrapped.task.data['answer']}</answer>"
    done = subprocess.run([str(PEER_PYTHON), "-c", code, url, answer], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.strip().splitlines()[-1]) == 1.0


def test_bad_exports_are_refused(tmp_path: Path) -> None:
    with pytest.raises(agentgym.EnvNotFound):
        export_openenv("no-such-env", tmp_path / "x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not empty"):
        export_openenv("arith", tmp_path / "full")
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"
