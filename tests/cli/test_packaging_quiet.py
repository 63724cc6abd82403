"""Building agentgym (what ``make setup`` runs through pip) prints no setuptools warnings."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_builds_without_setuptools_warnings(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=600, check=True)
    log = done.stdout + done.stderr
    warnings = [line for line in log.splitlines() if "Warning" in line]
    assert not warnings, "\n".join(warnings)
    (wheel,) = tmp_path.glob("agentgym-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for wanted in ("agentgym/envs/sql/data/dbs/store.sqlite",
                   "agentgym/envs/webarena/sites/templates/base.html"):
        assert wanted in names, wanted
    data = [n for n in names if n.startswith("agentgym/envs/webarena/data/")]
    assert data, "webarena data files missing"
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert "Apache-2.0" in zipfile.ZipFile(wheel).read(meta).decode()
