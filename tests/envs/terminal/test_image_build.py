"""A Harbor task's own image, built by the Docker backend (``envs/terminal/image_build``).

The first tests need neither an engine nor a network (the FROM mapping, the content hash, the
build context, the error paths); the rest build real images on a real engine: a failing RUN
offline, and (``slow``: it reaches Debian's mirror and PyPI) a task whose Dockerfile runs
``pip install six``, scored by its oracle and by doing nothing, then reused by a second env.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from agentgym.envs.terminal import image_build
from agentgym.envs.terminal.dockerfile import build_plan
from agentgym.envs.terminal.env import TerminalEnv
from agentgym.errors import TaskError

FIXTURE = Path(__file__).parent / "fixtures_build" / "pip-six"
BASE = "agentgym-sandbox:py3"  # what the docker_engine fixture builds: Debian with python3


def call(name: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


# -- without an engine ---------------------------------------------------------------------


def test_a_debian_base_becomes_the_local_image_with_the_build_preamble():
    mapped = image_build.map_dockerfile("FROM debian:bookworm\nRUN pip install six\n",
                                        "sha256:abc")
    lines = mapped.splitlines()
    assert lines[0] == "FROM sha256:abc"
    args = next(line for line in lines if line.startswith("ARG "))
    assert "USER root" in lines and " PIP_BREAK_SYSTEM_PACKAGES=1 " in args
    assert any(line.startswith("RUN command -v pip") for line in lines)  # pip for a pip line
    assert lines.index("RUN pip install six") > lines.index(args)
    assert " PIP_CERT=/.agentgym-build/ca.crt " in args
    assert lines[-1] == "RUN rm -rf /.agentgym-build"  # the CA bundle leaves the image
    assert not any(line.startswith("ENV") for line in lines)  # build settings are ARGs only
    no_pip = image_build.map_dockerfile("FROM debian\nRUN echo hi\n", "sha256:abc")
    assert "command -v pip" not in no_pip


def test_an_unknown_base_is_refused_unless_the_user_maps_it():
    text = "FROM python:3.12-slim AS build\nRUN echo hi\nFROM build\nCOPY x /x\n"
    with pytest.raises(TaskError, match=r"FROM python:3.12-slim cannot be had.*"
                                        r"allow_base=\('python:3.12-slim',\)"):
        image_build.map_dockerfile(text, "sha256:abc")
    mapped = image_build.map_dockerfile(text, "sha256:abc", ("python:3.12-slim",))
    froms = [line for line in mapped.splitlines() if line.startswith("FROM")]
    assert froms == ["FROM sha256:abc AS build", "FROM build"]  # a stage is kept as a stage
    with pytest.raises(TaskError, match="FROM ubuntu:24.04 cannot be had"):
        image_build.map_dockerfile("FROM debian AS a\nFROM ubuntu:24.04\n", "sha256:abc")


def test_an_unknown_base_through_the_env_says_so_before_any_build(tmp_path):
    task = shutil.copytree(FIXTURE, tmp_path / "t")
    (task / "environment" / "Dockerfile").write_text("FROM python:3.12-slim\nRUN pip install six\n")
    env = TerminalEnv(task, split="all", backend="docker", image=BASE)
    with pytest.raises(TaskError, match=r"allow_base=\('python:3.12-slim',\)"):
        env.reset()
    env.close()


def test_the_tag_follows_the_content_and_the_base():
    files = {"Dockerfile": b"FROM debian\n", "a.txt": b"1"}
    tag = image_build.image_tag("FROM x\n", files, "sha256:1")
    assert tag.startswith("agentgym-task:") and tag == image_build.image_tag(
        "FROM x\n", dict(reversed(files.items())), "sha256:1")
    assert tag != image_build.image_tag("FROM x\n", {**files, "a.txt": b"2"}, "sha256:1")
    assert tag != image_build.image_tag("FROM x\n", {**files, "b.txt": b"1"}, "sha256:1")
    assert tag != image_build.image_tag("FROM x\n", files, "sha256:2")
    assert tag != image_build.image_tag("FROM y\n", files, "sha256:1")


def test_the_context_holds_the_task_files_and_the_build_settings():
    raw = image_build.context_tar({"Dockerfile": b"FROM debian\n", "d/run.sh": b"#!/bin/sh\n"},
                                  "FROM sha256:abc\n")
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        names = {m.name: m for m in tar}
        assert tar.extractfile(".agentgym.Dockerfile").read() == b"FROM sha256:abc\n"
        apt = tar.extractfile(".agentgym.Dockerfile.d/apt.conf").read()
    assert {"Dockerfile", "d/run.sh", ".agentgym.Dockerfile.d/ca.crt"} <= set(names)
    assert names["d/run.sh"].mode == 0o755 and b"Check-Valid-Until" in apt


def test_the_bubblewrap_plan_still_refuses_pip_and_names_the_build():
    with pytest.raises(TaskError, match="backend='docker', which builds the task's own image"):
        build_plan((FIXTURE / "environment" / "Dockerfile").read_text(), {})
    env = TerminalEnv(FIXTURE, split="all", backend="bubblewrap", build_image=True)
    with pytest.raises(TaskError, match="build_image=True needs backend='docker'"):
        env.reset()
    env.close()


class _Api:
    """The two engine calls ``build_image`` makes, answering as a failing build would."""

    def __init__(self, stream, built=False):
        self.stream, self.built, self.builds = stream, built, 0

    def inspect_image(self, name):
        if name.startswith("agentgym-task:") and not self.built:
            raise LookupError(name)
        return {"Id": "sha256:base"}

    def build(self, **kwargs):
        assert kwargs["network_mode"] == "host" and kwargs["custom_context"]
        self.builds += 1
        return iter(self.stream)


class _Client:
    def __init__(self, api):
        self.api = api


def test_a_failing_build_shows_its_log_tail_and_a_present_image_is_not_rebuilt():
    lines = [{"stream": f"step {i}\n"} for i in range(60)]
    api = _Api([*lines, {"error": "The command '/bin/sh -c false' returned a non-zero code: 1"}])
    with pytest.raises(TaskError) as err:
        image_build.build_image(_Client(api), "t", "FROM debian\nRUN false\n", {})
    text = str(err.value)
    assert "returned a non-zero code: 1" in text and "step 59" in text and "step 10\n" not in text
    slow = _Api([{"stream": "Step 1/9 : FROM sha256:base\n"}, {"stream": "never read\n"}])
    with pytest.raises(TaskError, match=r"timed out after 0 s \(\[environment\] build_timeout"):
        image_build.build_image(_Client(slow), "t", "FROM debian\n", {}, timeout_s=0)
    present = _Api([], built=True)
    tag = image_build.build_image(_Client(present), "t", "FROM debian\n", {})
    assert tag.startswith("agentgym-task:") and present.builds == 0


# -- a real engine ---------------------------------------------------------------------------


def _remove_images(tags: list[str], before: set[str]) -> None:
    """Remove the built images and the intermediate ones our builds left (by their history)."""
    import docker

    api = docker.from_env().api
    for tag in tags:
        try:
            api.remove_image(tag, force=True)
        except Exception:
            pass
    for image in api.images(all=True):
        if image["Id"] in before:
            continue
        try:
            history = json.dumps(api.history(image["Id"]))
        except Exception:
            continue
        if ".agentgym-build" in history:
            try:
                api.remove_image(image["Id"], force=True)
            except Exception:
                pass


@pytest.fixture
def images(docker_engine):
    """Tags to remove after the test (with the intermediate images of its builds)."""
    import docker

    before = {i["Id"] for i in docker.from_env().api.images(all=True)}
    tags: list[str] = []
    yield tags
    _remove_images(tags, before)


@pytest.mark.slow  # a real build: about a minute on the vfs storage driver
def test_a_failing_run_line_is_a_task_error_with_the_log(tmp_path, images):
    task = shutil.copytree(FIXTURE, tmp_path / "t")
    (task / "environment" / "Dockerfile").write_text(
        "FROM debian:bookworm\nRUN echo marker-before-failure && exit 3\n")
    env = TerminalEnv(task, split="all", backend="docker", image=BASE, build_image=True)
    with pytest.raises(TaskError) as err:
        env.reset()
    env.close()
    assert "marker-before-failure" in str(err.value)
    assert "returned a non-zero code: 3" in str(err.value)


@pytest.mark.slow
def test_a_pip_install_dockerfile_is_built_scored_and_reused(images):
    import docker

    builds = sum(image_build.BUILDS.values())
    env = TerminalEnv(FIXTURE, split="all", backend="docker", image=BASE, command_timeout_s=20)
    env.reset()  # the plan refuses `pip install`: the image is built
    session = env.session
    assert session is not None and session.built is not None
    images.append(session.built)
    assert sum(image_build.BUILDS.values()) == builds + 1
    for action in env.expert_actions(env.task):
        _, reward, terminated, _, info = env.step(action)
    assert terminated and reward == 1.0, info
    env.reset()
    obs, reward, terminated, _, info = env.step(call(
        "bash", command="python3 -c \"import six, socket; "
                        "socket.create_connection(('1.1.1.1', 53), 2)\" 2>&1; ls /.agentgym-build; "
                        "echo cert=$PIP_CERT"))
    text = obs["text"].lower()
    assert "unreachable" in text and "no such file" in text  # no network, no build settings
    assert "cert=\n" in text  # the build's arguments are not the episode's environment
    _, reward, terminated, _, info = env.step(call("submit"))
    assert terminated and reward == 0.0, info
    image_id = docker.from_env().api.inspect_image(session.built)["Id"]
    env.close()
    again = TerminalEnv(FIXTURE, split="all", backend="docker", image=BASE)
    again.reset()
    assert again.session.built == session.built  # the same content hash: reused, not rebuilt
    assert sum(image_build.BUILDS.values()) == builds + 1
    assert docker.from_env().api.inspect_image(session.built)["Id"] == image_id
    again.close()
