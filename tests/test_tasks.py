"""Task sets: loading, splits, deterministic selection, leak detection."""

import json

import pytest

from agentgym import SplitLeakError, Task, TaskError, TaskSet


def test_jsonl_loading_and_splits(tmp_path):
    path = tmp_path / "t.jsonl"
    rows = [{"task_id": f"t{i}", "prompt": f"q{i}", "split": "test" if i % 3 == 0 else "train",
             "gold": i} for i in range(9)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    ts = TaskSet.from_file(path)
    assert ts.name == "t"
    assert ts.splits == {"test": 3, "train": 6}
    assert ts.split("test").ids() == ["t0", "t3", "t6"]
    assert ts.get("t4").data == {"gold": 4}
    ts.check()


def test_unknown_split_and_task():
    ts = TaskSet([Task("a", "train", "x")])
    with pytest.raises(TaskError, match="no split 'test'"):
        ts.split("test")
    with pytest.raises(TaskError, match="no task 'b'"):
        ts.get("b")


def test_duplicate_ids_refused():
    with pytest.raises(TaskError, match="duplicate task id"):
        TaskSet([Task("a", "train", "x"), Task("a", "test", "y")])


def test_split_leak_detected():
    ts = TaskSet([Task("a", "train", "What is 2+2?"), Task("b", "test", " what is 2+2? ")])
    with pytest.raises(SplitLeakError, match="'b' \\(test\\) repeats 'a' \\(train\\)"):
        ts.check()


def test_bad_file_is_a_task_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json")
    with pytest.raises(TaskError, match="cannot read tasks"):
        TaskSet.from_file(path)
