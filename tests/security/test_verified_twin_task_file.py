"""The verified twin's task file (the expected answers the webarena-verified package scores
against) must live where no other local user can plant it first: under the shared temporary
directory its name was predictable (a hash of public content), so a file planted there under
that name was read as the scorer's expectations."""

from __future__ import annotations

import os
import stat
import tempfile

import pytest

from agentgym.envs.webarena import verified_twin


def test_a_task_file_planted_in_the_shared_tmp_is_never_read(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    text = verified_twin._dataset_text()
    digest = verified_twin.hashlib.sha256(text.encode()).hexdigest()[:16]
    planted = tmp_path / f"agentgym-verified-twin-{digest}.json"
    planted.write_text('[{"task_id": 1, "forged": true}]')
    path = verified_twin.dataset_file()
    assert path.read_text(encoding="utf-8") == text  # ours, not the planted file
    folder = path.parent
    assert folder != tmp_path and folder.stat().st_uid == os.geteuid()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_folder_another_user_could_write_is_refused(tmp_path, monkeypatch) -> None:
    from agentgym.errors import UnsafeFolder

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = verified_twin.task_file_folder()
    folder.chmod(0o777)  # as if someone else had made it first, open to all
    with pytest.raises(UnsafeFolder):
        verified_twin.dataset_file()
