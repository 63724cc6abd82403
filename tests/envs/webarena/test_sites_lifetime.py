"""The bundled sites' server: one per checkout, and it says when it is reused or left running."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agentgym.envs.webarena.sites import server as sites


def test_the_default_runtime_folder_is_keyed_to_the_checkout(monkeypatch):
    monkeypatch.delenv("AGENTGYM_WEBARENA_RUNTIME", raising=False)
    here = sites.checkout_key()
    assert here in sites.runtime_dir().name
    assert sites.checkout_key(Path("/a/checkout/envs"), "0.1.0") != sites.checkout_key(
        Path("/another/checkout/envs"), "0.1.0")
    assert sites.checkout_key(Path("/a/envs"), "0.1.0") != sites.checkout_key(
        Path("/a/envs"), "0.2.0")


def test_an_edit_of_the_site_sources_changes_the_key(tmp_path, monkeypatch):
    import shutil

    copy = tmp_path / "sites"
    shutil.copytree(Path(sites.__file__).parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(sites, "__file__", str(copy / "server.py"))
    sites._version.cache_clear()
    try:
        before = sites._version()
        assert before.startswith(sites._package_version() + "+sites.")
        sites._version.cache_clear()
        assert sites._version() == before  # the same sources: the same key
        (copy / "shopping.py").write_text((copy / "shopping.py").read_text() + "\n# edited\n")
        sites._version.cache_clear()
        assert sites._version() != before  # a server of the old sources is not reused
    finally:
        monkeypatch.undo()
        sites._version.cache_clear()


def test_a_server_of_another_checkout_is_not_reused(tmp_path, caplog):
    folder = tmp_path / "shared"
    mine = sites.ensure_sites(folder)
    try:
        state = json.loads((folder / sites.STATE_FILE).read_text())
        assert state["checkout"] == sites.checkout_source() and state["version"]
        state["checkout"] = "/some/other/checkout/envs/webarena/sites"
        (folder / sites.STATE_FILE).write_text(json.dumps(state))
        with pytest.raises(RuntimeError, match="another checkout") as e:
            sites.ensure_sites(folder)
        assert "--stop" in str(e.value)
        assert sites._alive(mine.pid)  # the other checkout's server is left alone
        state["checkout"] = sites.checkout_source()
        (folder / sites.STATE_FILE).write_text(json.dumps(state))
        sites._STARTED_HERE.clear()  # as if another process of this checkout had started it
        with caplog.at_level(logging.INFO, logger=sites.__name__):
            again = sites.ensure_sites(folder)
        assert again.pid == mine.pid
        assert f"reusing the WebArena sites server (pid {mine.pid})" in caplog.text
        message = sites.left_running_message(folder)
        assert message is not None and str(mine.pid) in message
        assert f"--stop --runtime {folder}" in message and "30 min" in message
    finally:
        assert sites.stop_sites(folder)
    assert sites.left_running_message(folder) is None
    assert not sites._alive(mine.pid)


def test_stop_from_the_command_line(tmp_path, capsys):
    folder = tmp_path / "rt"
    started = sites.ensure_sites(folder)
    sites.main(["--stop", "--runtime", str(folder)])
    assert not sites._alive(started.pid)
    assert f"stopped the WebArena sites server (pid {started.pid})" in capsys.readouterr().out
    sites.main(["--stop", "--runtime", str(folder)])
    assert "no WebArena sites server" in capsys.readouterr().out
