"""``agentgym eval webarena-lite --sites FILE`` end to end against stand-in WebArena servers.

Four official WebArena-Lite tasks (read from the installed package) run through the real CLI,
real Chromium and the stand-ins of :mod:`standin_webarena` on loopback: an information-seeking
task behind the shop's login (46), a URL-match search (66), a program-HTML task checked by the
GitLab member-role helper behind GitLab's login (112), and a map task whose page needs the map's
geocoder on another port (15). The env logs in by itself through the sites' forms; the map's
listed origins are reached and an unlisted one never is; an unreachable site is one error line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from agentgym.envs.webarena.official import OfficialTasksMissing, read_official

_spec = importlib.util.spec_from_file_location(
    "standin_webarena", Path(__file__).with_name("standin_webarena.py"))
assert _spec is not None and _spec.loader is not None
standin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(standin)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("needs_chromium")]
SLICE = [15, 46, 66, 112]


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[dict[str, standin.Site]]:
    try:
        tasks = {t["task_id"]: t for t in read_official("webarena-lite") if t["task_id"] in SLICE}
    except OfficialTasksMissing as e:
        pytest.skip(str(e))
    members = tasks[112]["eval"]["program_html"][0]["url"].replace("__GITLAB__", "")
    the_map, tiles, geocoder, elsewhere = standin.map_services(
        tasks[15]["eval"]["reference_answers"]["must_include"][0])
    out = {"shopping": standin.shop(tasks[46]["eval"]["reference_answers"]["must_include"][0]),
           "gitlab": standin.gitlab(members), "map": the_map,
           "tiles": tiles, "geocoder": geocoder, "elsewhere": elsewhere}
    out["model"] = standin.model_server({k: v.url for k, v in out.items()}, list(tasks.values()))
    try:
        yield out
    finally:
        for site in out.values():
            site.close()


def eval_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WA_")}
    return subprocess.run([sys.executable, "-m", "agentgym.cli", "eval", "webarena-lite",
                           *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_eval_runs_official_tasks_on_the_sites_given(sites: dict, tmp_path: Path) -> None:
    (tmp_path / "sites.yaml").write_text(yaml.safe_dump({
        "sites": {name: sites[name].url for name in ("shopping", "gitlab", "map")},
        "map_origins": [sites["tiles"].url, sites["geocoder"].url],
        "auth_dir": "auth"}))
    proc = eval_cli(["--sites", "sites.yaml", "--env-arg", f"task_ids={SLICE}", "--policy",
                     f"openai:{sites['model'].url}/v1?model=standin", "--num-envs", "2",
                     "--out", "run"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    per_task = {row["task_id"]: row for row in results["per_task"]}
    assert sorted(per_task, key=int) == [str(t) for t in SLICE]
    assert {t: row["successes"] for t, row in per_task.items()} == {str(t): 1 for t in SLICE}
    # logged in through the forms, once per site for both envs, and the states kept
    assert sum(h.startswith("POST /customer/account/loginPost/") for h in sites["shopping"].hits) \
        == 1
    assert sum(h == "POST /users/sign_in" for h in sites["gitlab"].hits) == 1
    assert (tmp_path / "auth" / "shopping_state.json").is_file()
    # the map's listed services were reached, the unlisted origin never
    assert any(h.startswith("GET /0/0/0.png") for h in sites["tiles"].hits)
    assert any(h.startswith("GET /search") for h in sites["geocoder"].hits)
    assert sites["elsewhere"].hits == []


def test_the_map_needs_its_geocoder_origin(sites: dict, tmp_path: Path) -> None:
    """Without the geocoder among the map's origins its answer never appears: reward 0."""
    (tmp_path / "sites.yaml").write_text(yaml.safe_dump({
        "sites": {"map": sites["map"].url}, "map_origins": [sites["tiles"].url]}))
    proc = eval_cli(["--sites", "sites.yaml", "--env-arg", "task_ids=[15]", "--policy",
                     f"openai:{sites['model'].url}/v1?model=standin", "--num-envs", "1",
                     "--out", "run"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["metrics"]["successes"] == 0 and results["metrics"]["episodes"] == 1
    assert sites["geocoder"].hits == []


def test_an_unreachable_site_is_one_error_line(sites: dict, tmp_path: Path) -> None:
    dead = standin.Site("dead")
    dead.close()
    proc = eval_cli(["--sites", "sites.yaml", "--policy", "random", "-n", "1"], tmp_path) \
        if (tmp_path / "sites.yaml").write_text(yaml.safe_dump(
            {"shopping": sites["shopping"].url, "gitlab": dead.url})) else None
    assert proc is not None and proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "gitlab" in lines[0] and "unreachable" in lines[0], proc.stderr


def test_an_expired_login_state_is_made_again(sites: dict, tmp_path: Path) -> None:
    (tmp_path / "auth").mkdir()
    stale = {"cookies": [{"name": "shop_session", "value": "expired", "domain": "127.0.0.1",
                          "path": "/", "expires": -1, "httpOnly": True, "secure": False,
                          "sameSite": "Lax"}], "origins": []}
    (tmp_path / "auth" / "shopping_state.json").write_text(json.dumps(stale))
    (tmp_path / "sites.yaml").write_text(yaml.safe_dump({
        "sites": {"shopping": sites["shopping"].url}, "auth_dir": "auth"}))
    proc = eval_cli(["--sites", "sites.yaml", "--env-arg", "task_ids=[46]", "--policy",
                     f"openai:{sites['model'].url}/v1?model=standin", "--num-envs", "1",
                     "--out", "run"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads((tmp_path / "run" / "results.json").read_text())["metrics"]["successes"] == 1
    assert sum(h.startswith("POST /customer/account/loginPost/") for h in sites["shopping"].hits) \
        == 1
    fresh = json.loads((tmp_path / "auth" / "shopping_state.json").read_text())
    assert [c["value"] for c in fresh["cookies"] if c["name"] == "shop_session"] == ["emma"]
