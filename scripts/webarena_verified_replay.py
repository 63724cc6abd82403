"""WebArena-Verified's reference episodes replayed in Chromium and scored by the package itself.

    python scripts/webarena_verified_replay.py [--split hard] [-n N] [--out DIR]

For every task of the split: the ``webarena-verified`` worker writes the reference episode (the
expected answer and the requests its checks expect, :mod:`verified_reference`); stand-in sites
on loopback answer each expected request as the reference says (status, ``Location``, cookies,
JSON body) and any other page with a plain one; the recorded turns (a JSONL the ``replay``
policy reads) go to a replay page per expected request, which makes it from the browser (a
followed link for a page, a synchronous ``XMLHttpRequest`` for the rest, from the expected
referer where a check names one), and end with ``stop [the answer]``. Then::

    agentgym eval webarena-verified --split hard --sites SITES --policy replay:TURNS --out DIR

runs them: real Chromium, the env's network log (``envs/webarena/netlog.py``), the package's
evaluator in its worker. The last lines count the episodes scored without an evaluation error
(scoreable) and those scored 1.0. Needs ``make setup-webarena-verified``.
"""

from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from agentgym.envs.webarena.official import official_split
from agentgym.envs.webarena.verified_client import VerifiedScorer, worker_python

SITES = ("shopping", "shopping_admin", "reddit", "gitlab", "map", "wikipedia", "homepage")
EPISODES: dict[str, list[dict[str, Any]]] = {}
"""Task id -> its expected HAR entries (after the opening navigation)."""


def _key(url: str) -> str:
    parts = urlsplit(url)  # http.server turns a leading "//" into "/" (GitLab's "//api")
    return unquote(f"{parts.netloc}/{parts.path.lstrip('/')}?{parts.query}")  # " " is "%20"


class Handler(BaseHTTPRequestHandler):
    """A stand-in site: replay pages, the expected answers, a plain page for the rest."""

    def log_message(self, *args: Any) -> None:
        pass

    def _task(self) -> str:
        for part in (self.headers.get("cookie") or "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == "agentgym_task":
                return value
        return ""

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _page(self, text: str, script: str = "", cookie: str = "") -> None:
        body = (f"<!doctype html><html><head><title>{html.escape(text)}</title></head><body>"
                f"<p>{html.escape(text)}</p><script>{script}</script></body></html>").encode()
        headers = {"content-type": "text/html; charset=utf-8"}
        if cookie:
            headers["set-cookie"] = f"agentgym_task={cookie}; Path=/"
        self._send(200, body, headers)

    def _replay(self, task: str, entry: dict[str, Any], cookie: str = "") -> None:
        request = entry["request"]
        script = "".join(  # cookies the check expects the request to carry
            f"document.cookie = {json.dumps(pair.strip() + '; path=/')};"
            for h in request["headers"] if h["name"].lower() == "cookie"
            for pair in h["value"].split(";") if "=" in pair)
        if request["method"] == "GET":
            script += f"location.href = {json.dumps(request['url'])};"
        else:
            post = request.get("postData") or {}
            script += ("var x = new XMLHttpRequest(); "
                      f"x.open({json.dumps(request['method'])}, {json.dumps(request['url'])}, "
                      "false); ")
            if post:
                script += (f"x.setRequestHeader('content-type', {json.dumps(post['mimeType'])}); "
                           f"x.send({json.dumps(post['text'])});")
            else:
                script += "x.send();"
        self._page(f"replaying a request of task {task}", script, cookie)

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        path = self.path
        if path.startswith("/__replay/"):
            _, _, task, index = path.split("?")[0].split("/")[:4]
            entry = EPISODES.get(task, [])[int(index)] if index.isdigit() else None
            if entry is None:
                self._page("done")
                return
            referer = next((h["value"] for h in entry["request"]["headers"]
                            if h["name"].lower() == "referer"), "")
            if referer:  # the request must come from that page: go there first
                entry["_referer_key"] = _key(referer)  # before the browser can follow
                self._send(302, b"", {"location": referer,
                                      "set-cookie": f"agentgym_task={task}; Path=/"})
                return
            self._replay(task, entry, cookie=task)
            return
        host = self.headers.get("host", "")
        here = _key(f"http://{host}{path}")
        entries = EPISODES.get(self._task(), [])
        for entry in entries:  # a referer page the replay was sent to
            if entry.get("_referer_key") == here and self.command == "GET":
                entry.pop("_referer_key")
                self._replay(self._task(), entry)
                return
        for entry in reversed(entries):
            request = entry["request"]
            if request["method"] == self.command and _key(request["url"]) == here:
                self._answer(entry["response"], host)
                return
        self._page("stand-in page")

    def _answer(self, response: dict[str, Any], host: str) -> None:
        status = int(response.get("status") or 200)
        if status < 0:  # a request that must fail: no answer at all
            self.close_connection = True
            self.connection.shutdown(2)
            return
        headers = {"content-type": "text/html; charset=utf-8"}
        body = b"<!doctype html><html><body>ok</body></html>"
        content = response.get("content") or {}
        if content.get("text"):
            headers["content-type"] = content.get("mimeType") or "application/json"
            body = content["text"].encode()
        if 300 <= status < 400:
            headers["location"] = f"http://{host}/__replay/done/x"
        for cookie in response.get("cookies") or ():
            headers["set-cookie"] = f"{cookie['name']}={cookie['value']}; Path=/"
        self._send(status, body, headers)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve  # noqa: N815


def main() -> None:
    """Serve the stand-ins, write the turns, run ``agentgym eval``, count what scored."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="hard")
    parser.add_argument("-n", type=int, default=0)
    parser.add_argument("--out", default="")
    parser.add_argument("--num-envs", default="2")
    args = parser.parse_args()
    servers = {site: ThreadingHTTPServer(("127.0.0.1", 0), Handler) for site in SITES}
    for server in servers.values():
        threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = {site: f"http://127.0.0.1:{s.server_address[1]}" for site, s in servers.items()}
    work = Path(args.out or tempfile.mkdtemp(prefix="wav-replay-"))
    work.mkdir(parents=True, exist_ok=True)
    state = work / "empty_state.json"
    state.write_text('{"cookies": [], "origins": []}', encoding="utf-8")
    (work / "sites.json").write_text(json.dumps(
        {**urls, "storage_states": {s: str(state) for s in SITES}, "map_origins": []}))
    tasks = list(official_split("webarena-verified", args.split))
    tasks = tasks[:args.n] if args.n else tasks
    worker = VerifiedScorer(worker_python())
    with open(work / "turns.jsonl", "w", encoding="utf-8") as fh:
        for task in tasks:
            ref = worker.reference(int(task.task_id), urls)
            EPISODES[task.task_id] = entries = ref["har"][1:]
            turns = [f"goto [{urls[_site(e, urls)]}/__replay/{task.task_id}/{i}]"
                     for i, e in enumerate(entries)]
            turns.append(f"stop [{json.dumps(ref['response'])}]")
            fh.write(json.dumps({"task_id": task.task_id, "sample_idx": 0, "messages": [
                {"role": "assistant", "content": t} for t in turns]}) + "\n")
    worker.close()
    out = work / "eval"
    ids = ",".join(t.task_id for t in tasks)
    command = [str(Path(sys.executable).with_name("agentgym")), "eval", "webarena-verified",
               "--split", args.split, "--sites", str(work / "sites.json"), "--policy",
               f"replay:{work / 'turns.jsonl'}", "--out", str(out), "--overwrite",
               "--num-envs", args.num_envs, "--max-turns", "60", "--allow-aborted"]
    if args.n:
        command += ["--env-arg", f"task_ids=[{ids}]"]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=False)  # noqa: S603
    records = [json.loads(line) for line in
               (out / "trajectories" / "trajectories.jsonl").read_text().splitlines() if line]
    scoreable = [r for r in records if not r.get("aborted") and r["info"].get("eval")
                 and not r["info"].get("eval_error")]
    passed = [r for r in scoreable if r["info"].get("success")]
    failed = sorted(int(r["task_id"]) for r in records if r not in passed)
    print(f"replayed {len(records)} episodes of webarena-verified {args.split}; "
          f"failed or unscored: {failed}")
    print(f"webarena_verified_{args.split.replace('-', '_')}_scoreable="
          f"{len(scoreable)}/{len(tasks)}")
    print(f"webarena_verified_{args.split.replace('-', '_')}_reference_success="
          f"{len(passed)}/{len(tasks)}")


def _site(entry: dict[str, Any], urls: dict[str, str]) -> str:
    netloc = urlsplit(entry["request"]["url"]).netloc
    return next(site for site, url in urls.items() if urlsplit(url).netloc == netloc)


if __name__ == "__main__":
    main()
