"""The built wheel ships every data file the families read at run time."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {
    "envs": "agentgym/envs",
    "sandboxes": "agentgym/sandboxes",
    "trainers": "agentgym/trainers",
}


def test_wheel_contains_data_files(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("agentgym-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = []
    for folder, target in MAPPED.items():
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".sqlite", ".jsonl", ".json") and ".venv" not in path.parts:
                wanted.append(f"{target}/{path.relative_to(ROOT / folder).as_posix()}")
    assert wanted, "no data files found"
    missing = [w for w in wanted if w not in names]
    assert not missing, f"missing from the wheel: {missing}"
    assert "agentgym/envs/sql/data/dbs/store.sqlite" in names
