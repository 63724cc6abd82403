"""Stand-ins for WebArena's servers, on loopback, under the official URL layout.

Small enough to read: a shop (Magento's login form, wish list, order history and catalogue
search paths), GitLab (its sign-in form's test ids, profile and project members page with the
members table GitLab renders), the map (a page that loads a tile from the tile server and asks
the geocoder with a synchronous cross-origin request while it loads, as the real map's
services live on other ports), the tile server, the geocoder, an origin nobody allowed, and a
model: an OpenAI-compatible server that plays a fixed script per official task, reading
element ids from the observation as a model would. Everything task-specific (answers, paths,
account names) is read from the official task records at run time, never written here.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

SHOP_LOGIN = ("emma.lopez@gmail.com", "Password.123")
GITLAB_LOGIN = ("byteblaze", "hello1234")
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                    "0000000d4944415478da63f8ffff3f0005fe02fea7d605a30000000049454e44ae426082")


class Site:
    """One server: ``routes[(method, path)](request) -> (status, headers, body)``."""

    def __init__(self, name: str) -> None:
        self.name, self.hits = name, []
        self.routes: dict[tuple[str, str], Callable[[Request], tuple[int, dict, bytes]]] = {}
        handler = type("Handler", (_Handler,), {"site": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def route(self, method: str, path: str) -> Callable[[Callable], Callable]:
        def add(fn: Callable) -> Callable:
            self.routes[(method, path)] = fn
            return fn
        return add

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Request:
    """What a route sees."""

    def __init__(self, path: str, query: dict[str, list[str]], form: dict[str, list[str]],
                 cookies: str) -> None:
        self.path, self.query, self.form, self.cookies = path, query, form, cookies


class _Handler(BaseHTTPRequestHandler):
    site: Site

    def log_message(self, *args: Any) -> None:
        pass

    def _serve(self, method: str) -> None:
        url = urlsplit(self.path)
        self.site.hits.append(f"{method} {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        request = Request(url.path, parse_qs(url.query), parse_qs(body),
                          self.headers.get("Cookie") or "")
        route = self.site.routes.get((method, url.path))
        status, headers, data = route(request) if route else (404, {}, b"not found")
        self.send_response(status)
        for key, value in {"Content-Type": "text/html; charset=utf-8", **headers}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 -- http.server's names
        self._serve("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._serve("POST")


def page(title: str, body: str) -> tuple[int, dict, bytes]:
    return 200, {}, f"<!doctype html><html><head><title>{title}</title></head><body><main>" \
                    f"<h1>{title}</h1>{body}</main></body></html>".encode()


def redirect(to: str, cookie: str = "") -> tuple[int, dict, bytes]:
    headers = {"Location": to}
    if cookie:
        headers["Set-Cookie"] = f"{cookie}; Path=/; HttpOnly"
    return 303, headers, b""


def shop(latest_complete_total: str) -> Site:
    site = Site("shopping")

    def signed_in(req: Request) -> bool:
        return "shop_session=emma" in req.cookies

    @site.route("GET", "/")
    def home(req: Request) -> tuple[int, dict, bytes]:
        return page("One Stop Market", '<form action="/catalogsearch/result/" method="get">'
                    '<label for="search">Search</label><input id="search" type="search" '
                    'name="q"></form>')

    @site.route("GET", "/customer/account/login/")
    def login_form(req: Request) -> tuple[int, dict, bytes]:
        return page("Customer Login", '<form method="post" action="/customer/account/loginPost/">'
                    '<label for="email">Email</label><input id="email" name="login[username]">'
                    '<label for="pass">Password</label><input id="pass" type="password" '
                    'name="login[password]"><button type="submit">Sign In</button></form>')

    @site.route("POST", "/customer/account/loginPost/")
    def login(req: Request) -> tuple[int, dict, bytes]:
        if (req.form.get("login[username]"), req.form.get("login[password]")) == (
                [SHOP_LOGIN[0]], [SHOP_LOGIN[1]]):
            return redirect("/customer/account/", "shop_session=emma")
        return redirect("/customer/account/login/")

    @site.route("GET", "/customer/account/")
    def account(req: Request) -> tuple[int, dict, bytes]:
        return page("My Account", "Emma Lopez") if signed_in(req) \
            else redirect("/customer/account/login/")

    @site.route("GET", "/wishlist/")
    def wishlist(req: Request) -> tuple[int, dict, bytes]:
        return page("My Wish List", "empty") if signed_in(req) \
            else redirect("/customer/account/login/")

    @site.route("GET", "/sales/order/history/")
    def orders(req: Request) -> tuple[int, dict, bytes]:
        if not signed_in(req):
            return redirect("/customer/account/login/")
        rows = "".join(f"<tr><td>{n}</td><td>{d}</td><td>${t}</td><td>{s}</td></tr>"
                       for n, d, t, s in (("000000189", "5/2/23", "754.99", "Pending"),
                                          ("000000170", "3/11/23", latest_complete_total,
                                           "Complete"),
                                          ("000000166", "3/10/23", "17.99", "Complete")))
        return page("My Orders", "<table><tr><th>Order #</th><th>Date</th><th>Order Total"
                    f"</th><th>Status</th></tr>{rows}</table>")

    @site.route("GET", "/catalogsearch/result/")
    def search(req: Request) -> tuple[int, dict, bytes]:
        q = req.query.get("q", [""])[0].replace("<", "")
        return page(f"Search results for: '{q}'", "<p>12 items</p>")

    return site


MEMBER_ROW = ("<tr><td data-label='Account'><span class='gl-avatar-labeled-sublabel'>@{}"
              "</span></td><td class='col-max-role'><span>{}</span></td></tr>")


def gitlab(members_path: str) -> Site:
    site = Site("gitlab")
    members = {"byteblaze": "Owner"}

    def signed_in(req: Request) -> bool:
        return "_gitlab_session=byteblaze" in req.cookies

    @site.route("GET", "/users/sign_in")
    def sign_in_form(req: Request) -> tuple[int, dict, bytes]:
        return page("Sign in", '<form method="post" action="/users/sign_in">'
                    '<label for="u">Username</label><input id="u" name="username" '
                    'data-testid="username-field"><label for="p">Password</label><input id="p" '
                    'type="password" name="password" data-testid="password-field">'
                    '<button type="submit" data-testid="sign-in-button">Sign in</button></form>')

    @site.route("POST", "/users/sign_in")
    def sign_in(req: Request) -> tuple[int, dict, bytes]:
        if (req.form.get("username"), req.form.get("password")) == (
                [GITLAB_LOGIN[0]], [GITLAB_LOGIN[1]]):
            return redirect("/", "_gitlab_session=byteblaze")
        return redirect("/users/sign_in")

    @site.route("GET", "/")
    def home(req: Request) -> tuple[int, dict, bytes]:
        return page("Projects", "Dashboard") if signed_in(req) else redirect("/users/sign_in")

    @site.route("GET", "/-/profile")
    def profile(req: Request) -> tuple[int, dict, bytes]:
        return page("Edit Profile", "byteblaze") if signed_in(req) \
            else redirect("/users/sign_in")

    path = members_path

    @site.route("GET", path)
    def project_members(req: Request) -> tuple[int, dict, bytes]:
        if not signed_in(req):
            return redirect("/users/sign_in")
        rows = "".join(MEMBER_ROW.format(who, role) for who, role in members.items())
        return page("Project members", f'<form method="post" action="{path}">'
                    '<label for="who">Username</label><input id="who" name="user">'
                    '<label for="role">Role</label><select id="role" name="role">'
                    '<option>Guest</option><option>Reporter</option><option>Developer</option>'
                    '</select><button type="submit">Invite</button></form>'
                    f"<table><tr><th>Account</th><th>Max role</th></tr>{rows}</table>")

    @site.route("POST", path)
    def invite(req: Request) -> tuple[int, dict, bytes]:
        if not signed_in(req):
            return redirect("/users/sign_in")
        who, role = req.form.get("user", [""])[0], req.form.get("role", [""])[0]
        if re.fullmatch(r"[\w.-]{1,40}", who) and role in ("Guest", "Reporter", "Developer"):
            members[who] = role
        return redirect(path)

    return site


def map_services(postcode: str) -> tuple[Site, Site, Site, Site]:
    """The map site, its tile server, its geocoder (which knows one place), and an origin
    nobody allowed."""
    site, tiles, geocoder, elsewhere = Site("map"), Site("tiles"), Site("geocoder"), Site("ads")

    @tiles.route("GET", "/0/0/0.png")
    def tile(req: Request) -> tuple[int, dict, bytes]:
        return 200, {"Content-Type": "image/png"}, PNG

    @elsewhere.route("GET", "/x.png")
    def tracker(req: Request) -> tuple[int, dict, bytes]:
        return 200, {"Content-Type": "image/png"}, PNG

    @geocoder.route("GET", "/search")
    def search(req: Request) -> tuple[int, dict, bytes]:
        place = {"display_name": f"the place asked for, Pittsburgh, postcode {postcode}"}
        return 200, {"Content-Type": "application/json", "Access-Control-Allow-Origin": "*"}, \
            json.dumps([place]).encode()

    @site.route("GET", "/")
    def home(req: Request) -> tuple[int, dict, bytes]:
        script = ("<script>let text = 'search failed'; try { const r = new XMLHttpRequest(); "
                  f"r.open('GET', '{geocoder.url}/search?q=the+place&format=json', "
                  "false); r.send(); text = JSON.parse(r.responseText)[0].display_name; } "
                  "catch (e) {} document.getElementById('place').textContent = text;</script>")
        return page("OpenStreetMap", f'<img alt="map tile" src="{tiles.url}/0/0/0.png">'
                    f'<img alt="sponsor" src="{elsewhere.url}/x.png">'
                    f'<p id="place"></p>{script}')

    return site, tiles, geocoder, elsewhere


def _element(obs: str, role: str, name: str) -> str:
    m = re.search(rf"\[(\d+)\] {role} '{re.escape(name)}", obs)
    return m.group(1) if m else "0"


def play(task: dict[str, Any], turn: int, obs: str, urls: dict[str, str]) -> str:
    """The stand-in model's next action for an official task (its record)."""
    tid, check = task["task_id"], task["eval"]
    if tid == 46:  # information seeking behind the shop's login
        if turn == 0:
            return f"goto [{urls['shopping']}/sales/order/history/]"
        m = re.search(r"\$([\d.]+)'.{0,80}?Complete", obs, re.S)
        return f"stop [{m.group(1) if m else 'unknown'}]"
    if tid == 66:  # a search whose final URL is checked
        query = parse_qs(urlsplit(check["reference_url"]).query)["q"][0]
        if turn == 0:
            return f"type [{_element(obs, 'searchbox', 'Search')}] [{query}] [1]"
        return "stop []"
    if tid == 112:  # a member invitation checked by the member-role helper
        item = check["program_html"][0]
        account = re.search(r"'([^']+)'\)$", item["locator"]).group(1)
        role = item["required_contents"]["must_include"][0]
        path = item["url"].replace("__GITLAB__", urls["gitlab"])
        steps = [f"goto [{path}]", f"type [{_element(obs, 'textbox', 'Username')}] [{account}] [0]",
                 f"select [{_element(obs, 'combobox', 'Role')}] [{role}]",
                 f"click [{_element(obs, 'button', 'Invite')}]", "stop []"]
        return steps[min(turn, len(steps) - 1)]
    if tid == 15:  # the map: the answer comes from its geocoder on another port
        m = re.search(r"postcode (\d{5})", obs)
        return f"stop [{m.group(1) if m else 'unknown'}]"
    return "stop [I do not know this task]"


def model(urls: dict[str, str]) -> Site:
    """An OpenAI-compatible server whose replies are :func:`play`'s actions."""
    site = Site("model")

    @site.route("GET", "/v1/models")
    def models(req: Request) -> tuple[int, dict, bytes]:
        return 200, {"Content-Type": "application/json"}, \
            json.dumps({"object": "list", "data": [{"id": "standin"}]}).encode()

    return site


class ModelHandler(_Handler):
    """``/v1/chat/completions`` reads a JSON body, so it has its own handler."""

    urls: dict[str, str] = {}
    tasks: dict[str, dict[str, Any]] = {}

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        texts = [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
                 for m in messages]
        intent = next((re.search(r"Task: (.+)", t).group(1) for t in texts
                       if re.search(r"Task: (.+)", t)), "")
        turn = sum(m["role"] == "assistant" for m in messages)
        task = self.tasks.get(intent.strip())
        action = play(task, turn, texts[-1], self.urls) if task else "stop [unknown task]"
        self.site.hits.append(action)
        data = json.dumps({"id": "c", "object": "chat.completion", "model": "standin",
                           "choices": [{"index": 0, "finish_reason": "stop", "message": {
                               "role": "assistant", "content": action}}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def model_server(urls: dict[str, str], tasks: list[dict[str, Any]]) -> Site:
    """The stand-in model, playing ``tasks`` (official records) on the sites at ``urls``."""
    site = model(urls)
    site.close()
    handler = type("Handler", (ModelHandler,), {"site": site, "urls": urls,
                                                "tasks": {t["intent"].strip(): t for t in tasks}})
    site.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    site.url = f"http://127.0.0.1:{site.server.server_address[1]}"
    threading.Thread(target=site.server.serve_forever, daemon=True).start()
    return site
