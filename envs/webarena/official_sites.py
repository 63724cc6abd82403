"""Real WebArena servers: their URLs, the map's extra origins, reachability and reset hooks.

Site URLs come, first found first, from the env's ``sites`` argument (a mapping, or the path of a
YAML/JSON file), the ``config`` file, or the variables the field's tools read (``WA_SHOPPING``,
``WA_SHOPPING_ADMIN``, ``WA_REDDIT``, ``WA_GITLAB``, ``WA_MAP``, ``WA_WIKIPEDIA``,
``WA_HOMEPAGE``). A sites file holds the URLs at its top level or under ``sites:``, and may add::

    map_origins: [http://host:8080, http://host:5000]  # the map's tile/geocoding/routing servers
    storage_states: {shopping: .auth/shopping_state.json}   # else the env logs in itself
    reset: {shopping: http://host:8877/restart?wait=true}   # POSTed before a require_reset task
    auth_dir: .auth                                         # where auto-login keeps its states
    task_file: my_tasks.raw.json                            # instead of the official set

WebArena's map page loads tiles, geocoding and routes from other ports of the map host (the
docker setup's tile server 8080, Nominatim 8085, OSRM car/bike/foot 5000-5002); these origins
are allowed by default, or exactly the ``map_origins`` given (``WA_MAP_ORIGINS``, comma
separated). :func:`check_reachable` asks every site once before the first episode and raises
one line naming a dead one.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from agentgym.errors import EnvError, InfrastructureError, MissingExtra

ENV_VARS = {"shopping": "WA_SHOPPING", "shopping_admin": "WA_SHOPPING_ADMIN",
            "reddit": "WA_REDDIT", "gitlab": "WA_GITLAB", "map": "WA_MAP",
            "wikipedia": "WA_WIKIPEDIA", "homepage": "WA_HOMEPAGE"}
"""Site -> the environment variable that gives its URL."""
MAP_PORTS = (8080, 8085, 5000, 5001, 5002)
"""Ports of WebArena's map services beside the map site (tiles, Nominatim, OSRM x3)."""
SITE_KEYS = frozenset(ENV_VARS)
CONFIG_KEYS = frozenset({"sites", "map_origins", "storage_states", "reset", "auth_dir",
                         "task_file"})
"""Keys of a sites file besides the sites."""


class SitesNotConfigured(EnvError, MissingExtra):
    """An official task set was asked for without the URLs of the servers it runs on (what is
    missing is outside agentgym, as for an extra: checkers skip such an env)."""


@dataclass
class SiteConfig:
    """Everything the env needs to run tasks against real servers."""

    urls: dict[str, str]
    storage_states: dict[str, str] = field(default_factory=dict)
    map_origins: list[str] = field(default_factory=list)
    reset: dict[str, str] = field(default_factory=dict)
    auth_dir: Path | None = None
    task_file: str | None = None

    def origins(self) -> list[str]:
        """Every origin the episode's browser may reach."""
        return [*self.urls.values(), *self.map_origins]


def read_file(path: str | Path) -> dict[str, Any]:
    """A YAML or JSON mapping; relative paths inside it are made relative to the file."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".yaml", ".yml"):
        import yaml

        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    if not isinstance(data, dict):
        raise EnvError(f"{path}: expected a mapping of sites (or sites:, task_file:, ...)")
    for key in ("task_file", "auth_dir"):
        if data.get(key):
            data[key] = str((path.parent / str(data[key])).resolve())
    for site, state in (data.get("storage_states") or {}).items():
        data["storage_states"][site] = str((path.parent / str(state)).resolve())
    return data


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The ``WA_*`` variables as a sites mapping (empty when none is set)."""
    environ = os.environ if environ is None else environ
    out: dict[str, Any] = {site: environ[var] for site, var in ENV_VARS.items()
                           if environ.get(var)}
    if out and environ.get("WA_MAP_ORIGINS"):
        out["map_origins"] = [o.strip() for o in environ["WA_MAP_ORIGINS"].split(",") if o.strip()]
    return out


def resolve(sites: Mapping[str, Any] | str | Path | None, config: Mapping[str, Any],
            environ: Mapping[str, str] | None = None) -> SiteConfig | None:
    """The site configuration from the argument, the config file or the environment."""
    if isinstance(sites, (str, Path)):
        data: Mapping[str, Any] = read_file(sites)
    elif sites is not None:
        data = sites
    elif config.get("sites"):
        data = config
    else:
        data = from_environment(environ)
    if not data:
        return None
    urls = data.get("sites", data)
    if not isinstance(urls, Mapping):
        raise EnvError("sites must map site names to URLs")
    given = dict(urls) if "sites" in data else {k: v for k, v in data.items()
                                                  if k not in CONFIG_KEYS}
    unknown = [k for k in given if k not in SITE_KEYS]
    urls = {k: str(v).rstrip("/") for k, v in given.items() if k in SITE_KEYS and v}
    if unknown or not urls:
        raise EnvError(f"unknown or missing sites {unknown or list(urls)}; "
                       f"known: {', '.join(sorted(SITE_KEYS))}")
    for site, url in urls.items():
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
            raise EnvError(f"the {site} site's URL {url!r} is not an http(s) URL")
    extra = data.get("map_origins", config.get("map_origins"))
    if extra is None and "map" in urls:
        host = urlsplit(urls["map"])
        extra = [f"{host.scheme}://{host.hostname}:{port}" for port in MAP_PORTS]
    states = dict(config.get("storage_states") or {})
    states.update(data.get("storage_states") or {})
    auth = data.get("auth_dir") or config.get("auth_dir")
    return SiteConfig(urls=urls, storage_states=states, map_origins=list(extra or []),
                      reset=dict(data.get("reset") or config.get("reset") or {}),
                      auth_dir=Path(auth) if auth else None,
                      task_file=data.get("task_file") or config.get("task_file"))


_REACHED: set[tuple[str, ...]] = set()


def check_reachable(urls: Mapping[str, str], timeout_s: float = 10.0) -> None:
    """Ask each site once (per process); raise :class:`EnvError` naming the first dead one."""
    key = tuple(sorted(urls.values()))
    if key in _REACHED:
        return
    with httpx.Client(timeout=timeout_s, follow_redirects=False) as client:
        for site, url in urls.items():
            try:
                client.get(url)
            except httpx.HTTPError as e:
                raise EnvError(f"the WebArena {site} site at {url} is unreachable "
                               f"({type(e).__name__}: {e})") from e
    _REACHED.add(key)


async def run_reset(site: str, hook: str, client: httpx.AsyncClient) -> None:
    """Run the user's reset hook of ``site``: POST to an http(s) URL, or run a command."""
    if hook.startswith(("http://", "https://")):
        try:
            resp = await client.post(hook, timeout=600)
            resp.raise_for_status()
        except httpx.HTTPError as e:
            raise InfrastructureError(f"resetting {site} ({hook}) failed: {e}") from e
        return
    import asyncio
    import shlex

    proc = await asyncio.to_thread(subprocess.run, shlex.split(hook), capture_output=True,
                                   text=True, timeout=900, check=False)
    if proc.returncode != 0:
        raise InfrastructureError(f"resetting {site} ({hook}) exited {proc.returncode}: "
                                  f"{proc.stderr.strip()[-300:]}")
