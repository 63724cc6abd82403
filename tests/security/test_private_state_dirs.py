"""Attack: another local user creates agentgym's predictable state folders under the temporary
directory first (or a symlink by that name). The WebArena sites' runtime folder and the desktops'
state folder must refuse such a folder before reading or writing anything in it, and a folder
agentgym creates is this user's alone (mode 0700)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentgym.errors import UnsafeFolder
from agentgym.private_dirs import private_dir, user_tmp_dir

OTHER_UID = 65534
"""Another local user (nobody)."""
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


def _planted(path: Path, *, uid: int = OTHER_UID, mode: int = 0o777) -> Path:
    path.mkdir()
    (path / "state.json").write_text('{"pid": 1, "port": 1}')
    os.chown(path, uid, uid)
    path.chmod(mode)
    return path


def test_a_fresh_folder_is_created_for_this_user_alone(tmp_path: Path) -> None:
    folder = private_dir(tmp_path / "state")
    info = folder.stat()
    assert info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700
    assert private_dir(folder) == folder  # the second call accepts its own folder


@needs_root
def test_a_folder_another_user_made_first_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeFolder, match="uid 65534"):
        private_dir(_planted(tmp_path / "state", mode=0o700))


def test_a_symlink_by_that_name_is_refused_even_to_our_own_folder(tmp_path: Path) -> None:
    target = private_dir(tmp_path / "mine")
    (tmp_path / "state").symlink_to(target)
    with pytest.raises(UnsafeFolder, match="symlink"):
        private_dir(tmp_path / "state")


def test_a_folder_others_may_write_is_refused_and_one_they_may_read_is_tightened(
        tmp_path: Path) -> None:
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    with pytest.raises(UnsafeFolder, match="writable"):
        private_dir(open_folder)
    readable = tmp_path / "readable"
    readable.mkdir()
    readable.chmod(0o755)
    private_dir(readable)
    assert stat.S_IMODE(readable.stat().st_mode) == 0o700


def test_a_file_by_that_name_is_refused(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("x")
    with pytest.raises(UnsafeFolder, match="not a directory"):
        private_dir(tmp_path / "state")


def test_per_user_names_carry_the_uid() -> None:
    assert user_tmp_dir("agentgym-x").name == f"agentgym-x-{os.geteuid()}"


@needs_root
def test_the_webarena_sites_refuse_a_runtime_folder_another_user_made(tmp_path: Path) -> None:
    from agentgym.envs.webarena.sites import server

    folder = _planted(tmp_path / "runtime")
    with pytest.raises(UnsafeFolder):
        server.ensure_sites(folder, timeout_s=5)
    assert sorted(p.name for p in folder.iterdir()) == ["state.json"]  # nothing started there


@needs_root
def test_the_desktops_refuse_a_state_folder_another_user_made(tmp_path: Path, monkeypatch) -> None:
    from agentgym.sandboxes import desktop
    from agentgym.sandboxes._desktop_jail import allocate_uid

    folder = _planted(tmp_path / "desktops")
    with pytest.raises(UnsafeFolder):
        allocate_uid(folder)
    monkeypatch.setattr(desktop, "STATE_DIR", folder)
    with pytest.raises(UnsafeFolder):
        desktop.DesktopSandbox()
    assert sorted(p.name for p in folder.iterdir()) == ["state.json"]


def test_the_state_folders_are_named_per_user(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgym.envs.webarena.sites.server import runtime_dir

    monkeypatch.delenv("AGENTGYM_WEBARENA_RUNTIME", raising=False)  # other tests set their own
    from agentgym.sandboxes.desktop import STATE_DIR

    assert STATE_DIR.name.endswith(f"-{os.geteuid()}")
    assert f"-{os.getuid()}-" in runtime_dir().name
