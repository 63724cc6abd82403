"""The append-only store: durable appends, resume keys, torn-line recovery, images as files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym import AgentGymError
from agentgym.policies import Generation
from agentgym.rollout import Trajectory, TrajectoryStore, iter_jsonl


def _traj(task: str, sample: int = 0, *, aborted: bool = False, reward: float = 1.0) -> Trajectory:
    t = Trajectory(task_id=task, sample_idx=sample, reward=reward, aborted=aborted)
    t.start([1, 2, 3])
    t.add_generation(Generation("hi", [7, 8], [-0.1, -0.2], policy_version=2))
    t.add_env_tokens([4])
    t.messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "hi"}]
    return t


def test_append_reopen_and_resume_keys(tmp_path: Path) -> None:
    with TrajectoryStore(tmp_path) as store:
        store.append(_traj("a", 0))
        store.append(_traj("a", 1, aborted=True))
        store.append(_traj("b", 0, reward=0.5))
    store = TrajectoryStore(tmp_path)
    assert store.done_keys() == {("a", 0), ("b", 0)}  # the aborted one is retried
    assert store.done_keys(include_aborted=True) == {("a", 0), ("a", 1), ("b", 0)}
    got = store.get("b", 0)
    assert got == _traj("b", 0, reward=0.5)
    assert got.versions == [-1, -1, -1, 2, 2, -1] and got.loss_mask == [0, 0, 0, 1, 1, 0]
    store.append(_traj("a", 1))  # the retry: the last record of a key wins
    assert not store.get("a", 1).aborted and len(store) == 3
    assert [t.key for t in store] == [("a", 0), ("a", 1), ("b", 0)]
    store.close()
    assert len(list(iter_jsonl(tmp_path / "trajectories.jsonl"))) == 4


def test_torn_last_record_and_lost_index(tmp_path: Path) -> None:
    with TrajectoryStore(tmp_path) as store:
        store.append(_traj("a"))
        store.append(_traj("b"))
    records = tmp_path / "trajectories.jsonl"
    whole = records.read_bytes()
    records.write_bytes(whole + b'{"task_id": "c", "tok')  # killed mid-write
    with TrajectoryStore(tmp_path) as store:
        assert store.done_keys() == {("a", 0), ("b", 0)}
    assert records.read_bytes() == whole
    (tmp_path / "index.jsonl").unlink()  # index lost: rebuilt from the records
    with TrajectoryStore(tmp_path) as store:
        assert store.done_keys() == {("a", 0), ("b", 0)}
        assert store.get("b", 0).task_id == "b"
    assert len((tmp_path / "index.jsonl").read_text().splitlines()) == 2


def test_images_are_files_beside_the_records(tmp_path: Path) -> None:
    t = _traj("img/1")
    t.images = [b"\x89PNG one", b"\x89PNG two"]
    with TrajectoryStore(tmp_path) as store:
        store.append(t)
        back = store.get("img/1", 0)
    assert back.images == [] and len(back.image_paths) == 2
    assert (tmp_path / back.image_paths[1]).read_bytes() == b"\x89PNG two"
    assert "images" not in back.to_dict()


def test_refuses_to_overwrite_without_resume(tmp_path: Path) -> None:
    with TrajectoryStore(tmp_path) as store:
        store.append(_traj("a"))
    with pytest.raises(AgentGymError, match="already holds trajectories"):
        TrajectoryStore(tmp_path, resume=False)
