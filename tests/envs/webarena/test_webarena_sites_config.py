"""Where the WebArena site URLs come from: a sites file, ``WA_*`` variables, ``--env-arg``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

import agentgym
from agentgym.cli.evaluate import _env_kwargs
from agentgym.envs.webarena.official import OfficialTasksMissing, read_official
from agentgym.envs.webarena.official_sites import (
    MAP_PORTS,
    from_environment,
    resolve,
)
from agentgym.errors import EnvError


class Ok(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_wa_variables_give_the_sites_and_the_maps_services() -> None:
    env = {"WA_SHOPPING": "http://h:7770/", "WA_MAP": "http://h:3000", "WA_HOMEPAGE": "http://h:1",
           "OTHER": "x"}
    config = resolve(None, {}, env)
    assert config is not None
    assert config.urls == {"shopping": "http://h:7770", "map": "http://h:3000",
                           "homepage": "http://h:1"}
    assert config.map_origins == [f"http://h:{p}" for p in MAP_PORTS]
    env["WA_MAP_ORIGINS"] = "http://tiles:80, http://osrm:5000"
    assert resolve(None, {}, env).map_origins == ["http://tiles:80", "http://osrm:5000"]
    assert from_environment({}) == {} and resolve(None, {}, {}) is None


def test_a_sites_file_with_states_resets_and_paths(tmp_path: Path) -> None:
    (tmp_path / "sites.yaml").write_text(yaml.safe_dump({
        "sites": {"gitlab": "http://h:8023"}, "storage_states": {"gitlab": "auth/g.json"},
        "reset": {"gitlab": "http://h:8877/restart"}, "auth_dir": "auth"}))
    config = resolve(tmp_path / "sites.yaml", {})
    assert config is not None and config.urls == {"gitlab": "http://h:8023"}
    assert config.storage_states == {"gitlab": str(tmp_path / "auth" / "g.json")}
    assert config.reset == {"gitlab": "http://h:8877/restart"} and config.map_origins == []
    assert config.auth_dir == tmp_path / "auth"


@pytest.mark.parametrize("sites", [{"sites": {"shop": "http://h"}}, {"shopping": "ftp://h"},
                                   {"sites": "http://h"}, {"shoping": "http://h"}])
def test_bad_sites_are_one_clear_error(sites: dict[str, Any]) -> None:
    with pytest.raises(EnvError):
        resolve(sites, {})


def test_wa_variables_switch_webarena_lite_to_the_official_tasks(
        server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        read_official("webarena-lite")
    except OfficialTasksMissing as e:
        pytest.skip(str(e))
    monkeypatch.setenv("WA_SHOPPING", server)
    env = agentgym.make("webarena-lite")
    try:
        tasks = env.unwrapped.task_set
        assert len(tasks) == 165
        assert tasks.get("81").prompt == read_official("webarena-lite")[81]["intent"]
        assert env.unwrapped.allowed_origins() == [server]
    finally:
        env.close()
    monkeypatch.delenv("WA_SHOPPING")
    env = agentgym.make("webarena-lite")  # offline again: the bundled twin
    try:
        assert env.unwrapped.task_set.get("0").prompt.startswith("What is the price of")  # twin
    finally:
        env.close()


def test_env_args_are_read_as_yaml_values() -> None:
    assert _env_kwargs(["a=1", "b=[1, 2]", "c=x y", "d=true", "e="]) == {
        "a": 1, "b": [1, 2], "c": "x y", "d": True, "e": ""}
    with pytest.raises(typer.Exit):
        _env_kwargs(["no-equals-sign"])


def test_reset_hooks_post_or_run_and_report_failures(server: str, tmp_path: Path) -> None:
    import asyncio

    import httpx

    from agentgym.envs.webarena.official_sites import run_reset
    from agentgym.errors import InfrastructureError

    marker = tmp_path / "reset-ran"

    async def main() -> None:
        async with httpx.AsyncClient() as client:
            with pytest.raises(InfrastructureError, match="shopping"):
                await run_reset("shopping", f"{server}/restart", client)  # Ok answers GET only
            await run_reset("gitlab", f"touch {marker}", client)
            with pytest.raises(InfrastructureError, match="exited 1"):
                await run_reset("gitlab", "false", client)

    asyncio.run(main())
    assert marker.is_file()
