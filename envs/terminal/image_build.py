"""A Harbor task's own image, built by the Docker backend from its ``environment/`` folder.

Nothing is pulled from a registry: every ``FROM`` is mapped to the project's local Debian
image (``agentgym-terminal:bookworm``, made by ``scripts/build_sandbox_image.sh`` with
debootstrap). A plain Debian base (``FROM debian[:tag]``) is mapped as is; any other base only
when the user names it in ``allow_base`` (it then runs on Debian anyway), else a
:class:`TaskError` says how. The build has the network (the host's, as the engine runs without
a bridge) and reaches the package registries; episode containers of the image keep none.

The host's CA bundle goes into the build context (public certificates only, never a key) and
is pointed at by build arguments (``PIP_CERT``, ``SSL_CERT_FILE``, ``APT_CONFIG``...), which
RUN lines see but the image's environment does not keep; the files are deleted by the last
layer, so the task's filesystem holds neither. A stage that runs ``pip`` gets Debian's
``python3-pip`` first when its base has no pip, and ``PIP_BREAK_SYSTEM_PACKAGES=1`` so
``pip install`` works on Debian's Python (PEP 668).

The image is tagged by a hash of the mapped Dockerfile, the context's files and the base
image's id, so the second env (or process) of a task reuses it: :data:`BUILDS` counts the
builds this process ran.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import threading
import time
from collections import deque
from typing import Any

from agentgym.errors import InfrastructureError, TaskError

from .dockerfile import SYSTEM_DIRS, BuildPlan, logical_lines
from .harbor import HarborTask

BASE_IMAGE = "agentgym-terminal:bookworm"
"""The local Debian image every mapped ``FROM`` becomes (``scripts/build_sandbox_image.sh``)."""
TAG = "agentgym-task"
"""Repository of the built images; the tag is the content hash."""
LABEL = "agentgym.task.image"
"""Label on every built image (its value: the task's name), for cleanup."""
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
_BUILD_DIR = "/.agentgym-build"
_DOCKERFILE = ".agentgym.Dockerfile"
_DEBIAN = re.compile(r"^(docker\.io/)?(library/)?debian(:[\w.-]+)?(@sha256:[0-9a-f]+)?$")
_APT_CONF = ('Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n'
             f'Acquire::https::CAInfo "{_BUILD_DIR}/ca.crt";\n')
_ARGS = {
    "DEBIAN_FRONTEND": "noninteractive", "APT_CONFIG": f"{_BUILD_DIR}/apt.conf",
    "PIP_CERT": f"{_BUILD_DIR}/ca.crt", "SSL_CERT_FILE": f"{_BUILD_DIR}/ca.crt",
    "REQUESTS_CA_BUNDLE": f"{_BUILD_DIR}/ca.crt", "CURL_CA_BUNDLE": f"{_BUILD_DIR}/ca.crt",
    "PIP_BREAK_SYSTEM_PACKAGES": "1", "PIP_ROOT_USER_ACTION": "ignore",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_DEFAULT_TIMEOUT": "120",
}
_GET_PIP = ("command -v pip >/dev/null || command -v pip3 >/dev/null || { apt-get update && "
            "apt-get install -y --no-install-recommends python3-pip "
            "&& rm -rf /var/lib/apt/lists/*; }")
LOG_TAIL = 40
"""Lines of the build's output a failure shows."""

BUILDS: dict[str, int] = {}
"""Builds run by this process, by image tag (a reused image adds nothing)."""
_LOCK = threading.Lock()


def map_dockerfile(dockerfile: str, base_image_id: str, allow_base: tuple[str, ...] = ()) -> str:
    """``dockerfile`` with every external ``FROM`` made the local base (``base_image_id``) and
    the build preamble after it; raises :class:`TaskError` for a base that cannot be had."""
    lines = logical_lines(dockerfile)
    if not lines or lines[0][0] not in ("FROM", "ARG"):
        raise TaskError("Dockerfile: the first instruction must be FROM")
    stages: set[str] = set()
    out: list[str] = []
    for word, args in lines:
        if word != "FROM":
            out.append(f"{word} {args}")
            continue
        words = [w for w in args.split() if not w.startswith("--")]
        if not words:
            raise TaskError("Dockerfile: FROM names no image")
        base = words[0]
        alias = words[2].lower() if len(words) >= 3 and words[1].upper() == "AS" else None
        if base.lower() in stages:  # an earlier stage of this Dockerfile
            out.append(f"FROM {base}" + (f" AS {alias}" if alias else ""))
        elif _DEBIAN.match(base) or base in allow_base:
            out.append(f"FROM {base_image_id}" + (f" AS {alias}" if alias else ""))
            out += _preamble(dockerfile)
        else:
            raise TaskError(
                f"Dockerfile: FROM {base} cannot be had here (no registry pulls: every base is "
                f"the local Debian image {BASE_IMAGE}); pass allow_base=({base!r},) to build it "
                "on Debian anyway")
        if alias:
            stages.add(alias)
    if any(word == "USER" for word, _ in lines):
        out.append("USER root")
    out.append(f"RUN rm -rf {_BUILD_DIR}")
    return "\n".join(out) + "\n"


def _preamble(dockerfile: str) -> list[str]:
    out = ["USER root", f"COPY {_DOCKERFILE}.d/ {_BUILD_DIR}/"]
    out.append("ARG " + " ".join(f"{k}={v}" for k, v in _ARGS.items()))  # one step
    if re.search(r"\bpip3?\b", dockerfile):
        out.append(f"RUN {_GET_PIP}")
    return out


def context_tar(files: dict[str, bytes], dockerfile: str) -> bytes:
    """The build context: the task's ``environment/`` files, the mapped Dockerfile and the
    build's settings (the host's CA bundle, if any, and an apt config)."""
    extra = {_DOCKERFILE: dockerfile.encode(), f"{_DOCKERFILE}.d/apt.conf": _APT_CONF.encode(),
             f"{_DOCKERFILE}.d/ca.crt": _host_ca()}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in sorted({**files, **extra}.items()):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            if name.endswith(".sh") or data.startswith(b"#!"):
                info.mode = 0o755
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _host_ca() -> bytes:
    try:
        with open(os.environ.get("SSL_CERT_FILE", HOST_CA), "rb") as f:
            return f.read()
    except OSError:
        return b""


def image_tag(mapped: str, files: dict[str, bytes], base_image_id: str) -> str:
    """The content hash tag of a build: the mapped Dockerfile, the context and the base."""
    h = hashlib.sha256()
    for part in (base_image_id, mapped, *(f"{k}\0" for k in sorted(files))):
        h.update(part.encode() + b"\0")
    for key in sorted(files):
        h.update(hashlib.sha256(files[key]).digest())
    return f"{TAG}:{h.hexdigest()[:24]}"


def build_image(client: Any, name: str, dockerfile: str, files: dict[str, bytes], *,
                allow_base: tuple[str, ...] = (), base: str = BASE_IMAGE,
                timeout_s: float = 600.0, memory_mb: int = 4096) -> str:
    """The tag of the task's image, built unless an image of the same content is there.

    Each RUN step's container gets at most ``memory_mb`` (no swap beyond it). Raises
    :class:`TaskError` for a Dockerfile that cannot be built (its log's tail shown) and
    :class:`InfrastructureError` when the engine or the base image is missing.
    """
    try:
        base_id = str(client.api.inspect_image(base)["Id"])
    except Exception as e:
        raise InfrastructureError(f"building {name}: no base image {base} "
                                  f"(scripts/build_sandbox_image.sh): {e}") from None
    mapped = map_dockerfile(dockerfile, base_id, allow_base)
    tag = image_tag(mapped, files, base_id)
    with _LOCK:
        if _exists(client, tag):
            return tag
        _run_build(client, name, tag, context_tar(files, mapped), timeout_s, memory_mb)
        BUILDS[tag] = BUILDS.get(tag, 0) + 1
    return tag


def _exists(client: Any, tag: str) -> bool:
    try:
        client.api.inspect_image(tag)
    except Exception:
        return False
    return True


def _run_build(client: Any, name: str, tag: str, context: bytes, timeout_s: float,
               memory_mb: int) -> None:
    log: deque[str] = deque(maxlen=LOG_TAIL)
    deadline = time.monotonic() + timeout_s
    error = None
    try:
        stream = client.api.build(
            fileobj=io.BytesIO(context), custom_context=True, dockerfile=_DOCKERFILE, tag=tag,
            rm=True, forcerm=True, network_mode="host", decode=True, timeout=timeout_s,
            labels={LABEL: name[:200]},
            container_limits={"memory": memory_mb << 20, "memswap": memory_mb << 20},
        )  # fmt: skip
        for chunk in stream:
            text = str(chunk.get("stream") or chunk.get("status") or "")
            log.extend(line for line in text.splitlines() if line.strip())
            if chunk.get("error"):
                error = str(chunk["error"]).strip()
                break
            if time.monotonic() > deadline:
                error = f"timed out after {timeout_s:g} s ([environment] build_timeout_sec)"
                break
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # the engine stops a build whose client went away
    except Exception as e:  # a read past the deadline, or the engine went away
        if time.monotonic() > deadline - 1:
            error = f"timed out after {timeout_s:g} s ([environment] build_timeout_sec)"
        else:
            raise InfrastructureError(f"building {name}: docker build: {e}") from None
    if error is not None or not _exists(client, tag):
        tail = "\n".join(log)
        raise TaskError(f"building the image of {name} failed: {error or 'no image'}\n"
                        f"--- build log (last {LOG_TAIL} lines) ---\n{tail}")


def image_state(client: Any, image: str, roots: tuple[str, ...], cap: int = 1 << 30) -> bytes:
    """The image's files under ``roots`` as a state tar (entries relative to ``/``), read
    from a created, never started, container; :class:`TaskError` past ``cap`` bytes (the
    task's storage: they would not fit its tmpfs)."""
    cid = client.api.create_container(image, ["true"], network_disabled=True)["Id"]
    out = io.BytesIO()
    try:
        with tarfile.open(fileobj=out, mode="w") as dest:
            for root in roots:
                try:
                    chunks, _ = client.api.get_archive(cid, f"/{root}")
                except Exception:  # the image has no such directory
                    continue
                raw = io.BytesIO(b"".join(chunks))
                with tarfile.open(fileobj=raw, mode="r:") as src:
                    for member in src:
                        if member.name.strip("/") == root or not (
                                member.isfile() or member.isdir() or member.issym()):
                            continue
                        handle = src.extractfile(member) if member.isfile() else None
                        dest.addfile(member, handle)
                        if out.tell() > cap:
                            raise TaskError(f"the image {image} holds more than the task's "
                                            f"storage ({cap >> 20} MiB) under /{root}")
    finally:
        client.api.remove_container(cid, force=True)
    return out.getvalue()


ROOT_DIRS = {"opt", "srv", "home", "mnt", "media"}
"""Top-level directories of an image a WORKDIR may make an episode's own (a tmpfs filled
from the image), besides ``/app``; the other system directories stay the image's, read-only."""


def task_image(task: HarborTask, allow_base: tuple[str, ...], base: str) -> BuildPlan:
    """Build (or reuse) ``task``'s image over ``base``: its plan (``base`` is the image's tag,
    the image's WORKDIR and ENV, the episode's own directories)."""
    from agentgym.sandbox import SandboxUnavailable

    map_dockerfile(task.dockerfile, "base", allow_base)  # a FROM it cannot have: before Docker
    try:
        import docker

        client = docker.from_env()
    except Exception as e:
        raise SandboxUnavailable(f"docker terminal backend: {type(e).__name__}: {e}") from e
    tag = build_image(client, task.name, task.dockerfile, task.environment_files,
                      allow_base=allow_base, base=base, timeout_s=task.build_timeout_s,
                      memory_mb=max(2048, task.memory_mb))
    workdir, env = image_config(client, tag)
    top = [p for p in workdir.split("/") if p][:1]
    roots = {"app", *top} - (SYSTEM_DIRS - ROOT_DIRS)
    return BuildPlan(base=tag, workdir=workdir, env=env, roots=roots)


_STATES: dict[tuple[str, tuple[str, ...]], bytes] = {}


def cached_state(image: str, roots: tuple[str, ...], cap: int = 1 << 30) -> bytes:
    """:func:`image_state`, read once per image and roots in this process."""
    key = (image, roots)
    with _LOCK:
        if key not in _STATES:
            import docker

            _STATES[key] = image_state(docker.from_env(), image, roots, cap)
        return _STATES[key]


def image_config(client: Any, image: str) -> tuple[str, dict[str, str]]:
    """The image's working directory (``/app`` if none) and environment."""
    config = client.api.inspect_image(image).get("Config") or {}
    env = dict(e.partition("=")[::2] for e in config.get("Env") or [])
    return str(config.get("WorkingDir") or "/app"), env


__all__ = ["BASE_IMAGE", "BUILDS", "LABEL", "build_image", "cached_state", "context_tar",
           "image_config", "image_state", "image_tag", "map_dockerfile", "task_image"]
