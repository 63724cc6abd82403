"""``agentgym export openenv ENV DIR``: an agentgym env as an OpenEnv environment folder.

The folder has OpenEnv's layout (as ``openenv init`` makes it): ``openenv.yaml`` (``spec_version:
1``, ``runtime: fastapi``, ``app: server.app:app``, ``port: 8000``), ``server/app.py`` (the app of
``agentgym serve ENV --openenv``: the ``/ws`` session protocol, ``/reset``, ``/step``,
``/state``, ``/schema``, ``/metadata``, ``/health``), ``server/Dockerfile``, ``pyproject.toml``
and a README. OpenEnv's clients (``GenericEnvClient``), ``openenv serve`` and the trainers that
consume OpenEnv servers (TRL, SkyRL, torchrl) then run the env with agentgym's rewards.

The server keeps agentgym's access rules: on loopback it needs no token (the Host and Origin
checks of :mod:`agentgym.serve.guard` still hold); bound elsewhere (``AGENTGYM_HOST=0.0.0.0``,
as in the container) it refuses to start without ``AGENTGYM_SERVE_TOKEN``, which clients then
send as ``Authorization: Bearer <token>``.

The Dockerfile builds offline (``docker build --network none``) from a local Debian base
(``BASE_IMAGE``, default the project's ``agentgym-sandbox:py3``, made from Debian's packages by
``scripts/build_sandbox_image.sh``: python3 without pip) and the wheels in ``wheels/``: it makes
a venv ``--without-pip`` and installs ``agentgym[serve]`` with pip run from pip's own wheel,
``--no-index``. ``--wheel`` fills ``wheels/``: agentgym's own wheel, and pip's and every
dependency's, downloaded by pip for the exporting interpreter's Python (3.11 matches Debian
bookworm's ``python3``, the base image's).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ..errors import ConfigError
from ..registry import spec

_APP = '''"""OpenEnv server of agentgym's {env_id} (written by ``agentgym export openenv``).

Run it with ``openenv serve``, ``uvicorn server.app:app --port 8000`` or the Dockerfile. Bound to
a non-loopback address (``AGENTGYM_HOST``), it needs ``AGENTGYM_SERVE_TOKEN``.
"""

import os

from agentgym.serve.guard import TOKEN_ENV, is_loopback
from agentgym.serve.http import create_app
from agentgym.serve.run import access_for

HOST = os.environ.get("AGENTGYM_HOST", "127.0.0.1")
if not is_loopback(HOST) and not os.environ.get(TOKEN_ENV):
    raise SystemExit(f"serving {env_id} on {{HOST}} needs ${{TOKEN_ENV}} (a bearer token)")
ACCESS = access_for(HOST, allow_public=True)
app = create_app([{env_id!r}], guard=ACCESS.guard, env_kwargs={{"split": {split!r}}})
'''

_DOCKERFILE = '''# agentgym's {env_id} as an OpenEnv server (written by `agentgym export openenv`).
# Builds offline (docker build --network none): BASE_IMAGE is a local Debian image with python3
# (the project's scripts/build_sandbox_image.sh makes agentgym-sandbox:py3 with debootstrap) and
# wheels/ holds agentgym's wheel, pip's and every dependency's (`agentgym export ... --wheel`).
ARG BASE_IMAGE=agentgym-sandbox:py3
FROM ${{BASE_IMAGE}}
USER root
COPY wheels/ /wheels/
RUN python3 -m venv --without-pip /opt/env \\
    && pip_wheel="$(ls /wheels/pip-*.whl | head -n 1)" \\
    && /opt/env/bin/python "$pip_wheel/pip" install --no-index --no-cache-dir \\
       --find-links /wheels "{requirement}" \\
    && rm -rf /wheels
COPY server/ /app/server/
WORKDIR /app
ENV AGENTGYM_HOST=0.0.0.0 PORT=8000
# the server runs unprivileged (nobody), as the base image's sandboxes do
USER 65534:65534
EXPOSE 8000
CMD ["sh", "-c", "exec /opt/env/bin/python -m uvicorn server.app:app --host 0.0.0.0 --port $PORT"]
'''

_YAML = '''spec_version: 1
name: {name}
type: space
runtime: fastapi
app: server.app:app
port: 8000
'''

_PYPROJECT = '''[project]
name = "{name}"
version = "0.1.0"
description = "agentgym's {env_id} as an OpenEnv environment"
requires-python = ">=3.10"
dependencies = ["{requirement}"]

[project.scripts]
server = "server.app:app"
'''

_README = '''# {env_id} (agentgym) as an OpenEnv environment

Written by `agentgym export openenv {env_id} DIR --split {split}`. The server is agentgym's
(`agentgym serve {env_id} --openenv`), with agentgym's rewards and sandboxes.

    uvicorn server.app:app --port 8000                       # on loopback, no token
    docker build -f server/Dockerfile -t {name} .            # offline, from a local Debian base
    docker run -e AGENTGYM_SERVE_TOKEN=... -p 8000:8000 {name}

With openenv-core: `GenericEnvClient(base_url="http://127.0.0.1:8000")`; an action is an
assistant message without its role (`{{"content": ...}}` or `{{"tool_calls": [...]}}`), an
observation `{{"text", "images"}}`.
'''


def export_openenv(env_id: str, folder: Path, *, split: str = "test", wheel: bool = False,
                   overwrite: bool = False) -> Path:
    """Write ``env_id`` as an OpenEnv environment folder at ``folder``; returns it.

    ``wheel`` builds agentgym's own wheel into ``folder/wheels`` (for the offline Dockerfile).
    """
    canonical = spec(env_id).id  # an unknown id fails here, with the registry's choices
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()) and not overwrite:
        raise ConfigError(f"{folder} exists and is not empty (pass overwrite)")
    name = "agentgym-" + re.sub(r"[^a-z0-9]+", "-", canonical.lower()).strip("-")
    fields = {"env_id": canonical, "split": split, "name": name, "requirement": "agentgym[serve]"}
    (folder / "server").mkdir(parents=True, exist_ok=True)
    (folder / "wheels").mkdir(exist_ok=True)
    files = {
        "openenv.yaml": _YAML, "server/app.py": _APP, "server/__init__.py": "",
        "server/Dockerfile": _DOCKERFILE, "pyproject.toml": _PYPROJECT, "README.md": _README,
        "__init__.py": "",
    }
    for rel, template in files.items():
        (folder / rel).write_text(template.format(**fields), encoding="utf-8")
    (folder / "wheels" / ".keep").write_text("", encoding="utf-8")
    if wheel:
        _build_wheel(folder / "wheels")
    return folder


def _build_wheel(out: Path) -> None:
    """agentgym's own wheel, pip's and those of ``agentgym[serve]``'s dependencies into ``out``.

    agentgym's comes from its source checkout; the others are downloaded by pip (binary wheels
    for this interpreter's Python and platform), so the Dockerfile installs with ``--no-index``.
    """
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").exists():
        raise ConfigError("--wheel needs agentgym's source checkout; put a wheel of agentgym "
                          f"and its dependencies into {out} yourself")
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(root)], check=True)
    own = next(out.glob("agentgym-*.whl"))
    subprocess.run([*pip, "download", "--only-binary=:all:", "-d", str(out), "pip",
                    f"agentgym[serve] @ {own.resolve().as_uri()}"], check=True)


__all__ = ["export_openenv"]
