"""A task's own Docker image holds nothing a test or the oracle holds: the build context that
``image_build.build_image`` receives is the task's ``environment/`` folder, never ``tests/`` or
``solution/``, even when the environment folder names them in a ``COPY``."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

from agentgym.envs.terminal import image_build
from agentgym.envs.terminal.harbor import load_task

FIXTURE = Path(__file__).parents[1] / "envs" / "terminal" / "fixtures_build" / "pip-six"


def test_the_build_context_never_holds_the_tests_or_the_solution(tmp_path: Path) -> None:
    task_dir = tmp_path / "task"
    shutil.copytree(FIXTURE, task_dir)
    secret = b"the reference answer 4242\n"
    (task_dir / "tests" / "expected").write_bytes(secret)
    (task_dir / "solution" / "solve.sh").write_bytes(b"#!/bin/sh\necho 4242\n")
    dockerfile = task_dir / "environment" / "Dockerfile"  # a task that asks for them anyway
    dockerfile.write_text(dockerfile.read_text() + "COPY ../tests /t\nCOPY ../solution /s\n")
    task = load_task(task_dir)
    assert not any(name.startswith(("tests/", "solution/", "../")) or "expected" in name
                   for name in task.environment_files)
    raw = image_build.context_tar(task.environment_files, task.dockerfile)
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        contents = [tar.extractfile(m).read() for m in tar if m.isfile()]  # type: ignore[union-attr]
    assert not any(secret.strip() in c or b"echo 4242" in c for c in contents)
