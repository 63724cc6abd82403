"""The forum (``__REDDIT__``, Postmill-like): forums, posts sorted hot/new/top, comments, votes,
subscriptions, user pages and search. Writing needs the login."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .common import (
    Site,
    build_app,
    current_user,
    form_choice,
    form_text,
    path_int,
    query_choice,
    query_text,
    read_form,
    redirect,
    require_user,
)
from .state import SessionStore
from .views import field, form, link, pager, pager_view, sort_links, table

SORTS = {"hot": "Hot", "new": "New", "top": "Top"}
_ORDER = {"hot": "p.score DESC, p.id", "new": "p.created DESC, p.id DESC",
          "top": "p.score DESC, p.id"}
_POSTS = ("SELECT p.*, u.username, f.name AS forum, (SELECT COUNT(*) FROM comments c WHERE "
          "c.post_id = p.id) AS n FROM posts p JOIN users u ON u.id = p.user_id JOIN forums f ON "
          "f.id = p.forum_id ")
NOW = "2024-01-01 12:00"
"""The forum's clock: new posts and comments carry this time."""


def _post_rows(rows: list[Any]) -> list[list[Any]]:
    return [[link(r["title"], f"/f/{r['forum']}/{r['id']}"), link(r["forum"], f"/f/{r['forum']}"),
             link(r["username"], f"/user/{r['username']}"), r["score"], r["n"], r["created"]]
            for r in rows]


_COLS = ["Title", "Forum", "Submitted by", "Score", "Comments", "Submitted"]


def make_app(store: SessionStore) -> Starlette:
    """The forum app over ``store``."""
    site = Site("reddit", "Postmill", store,
                nav=[("/forums", "Forums"), ("/submit", "Submit"), ("/profile", "Profile")],
                search=("/search", "Search posts"))

    def user_id(conn: Any, username: str) -> int:
        row = conn.execute("SELECT id FROM users WHERE username = ?", (username,)).fetchone()
        if row is None:
            raise HTTPException(403, "unknown user")
        return int(row[0])

    def listing(request: Request, title: str, where: str, args: tuple[Any, ...],
                extra: list[dict[str, Any]] | None = None) -> Response:
        sort = query_choice(request, "sort", tuple(SORTS))
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM posts p WHERE {where}", args).fetchone()[0]
            p = pager(request, total, 25)
            rows = conn.execute(f"{_POSTS} WHERE {where} ORDER BY {_ORDER[sort]} LIMIT ? OFFSET ?",
                                (*args, p.per_page, p.offset)).fetchall()
        return site.render(request, "page.html", title=title, sections=[
            *(extra or []), {"heading": "Sort", "links": sort_links(request, "sort", SORTS, sort)},
            {"heading": "Submissions", "table": table(_COLS, _post_rows(rows))}],
            pager=pager_view(request, p), message=request.query_params.get("msg", "")[:80])

    async def home(request: Request) -> Response:
        return listing(request, "Front page", "1", ())

    async def forums(request: Request) -> Response:
        with site.db(request) as conn:
            rows = conn.execute("SELECT f.*, (SELECT COUNT(*) FROM posts p WHERE p.forum_id = "
                                "f.id) AS n FROM forums f ORDER BY f.name").fetchall()
        return site.render(request, "page.html", title="List of forums", sections=[
            {"heading": "Forums", "table": table(["Forum", "Title", "Submissions"], [
                [link(r["name"], f"/f/{r['name']}"), r["title"], r["n"]] for r in rows])}])

    async def forum(request: Request) -> Response:
        name = str(request.path_params["forum"])
        user = current_user(request, site.name)
        with site.db(request) as conn:
            f = conn.execute("SELECT * FROM forums WHERE name = ?", (name,)).fetchone()
            subscribed = f is not None and user is not None and conn.execute(
                "SELECT 1 FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE "
                "u.username = ? AND s.forum_id = ?", (user, f["id"])).fetchone() is not None
        if f is None:
            raise HTTPException(404, "no such forum")
        sub = [{"heading": "About", "text": f["description"],
                "facts": [("Subscription", "Subscribed" if subscribed else "Not subscribed")],
                "forms": [form(f"/f/{name}/subscribe", "Subscribe", [], id="sub")]}]
        return listing(request, f"/f/{name}", "p.forum_id = ?", (f["id"],), sub)

    def load_post(conn: Any, request: Request) -> Any:
        pid = path_int(request, "pid")
        post = conn.execute(f"{_POSTS} WHERE p.id = ? AND f.name = ?",
                            (pid, str(request.path_params["forum"]))).fetchone()
        if post is None:
            raise HTTPException(404, "no such post")
        return post

    async def post(request: Request) -> Response:
        with site.db(request) as conn:
            p = load_post(conn, request)
            comments = conn.execute("SELECT c.*, u.username FROM comments c JOIN users u ON "
                                    "u.id = c.user_id WHERE post_id = ? ORDER BY c.id",
                                    (p["id"],)).fetchall()
        base = f"/f/{p['forum']}/{p['id']}"
        return site.render(request, "page.html", title=p["title"], intro=p["body"], facts=[
            ("Submitted by", link(p["username"], f"/user/{p['username']}")),
            ("Forum", link(p["forum"], f"/f/{p['forum']}")), ("Score", p["score"]),
            ("Submitted", p["created"])], message=request.query_params.get("msg", "")[:80],
            sections=[
                {"heading": "Vote", "forms": [
                    form(f"{base}/vote", "Upvote", [field("dir", "", "hidden", "up")], id="up"),
                    form(f"{base}/vote", "Downvote", [field("dir", "", "hidden", "down")],
                         id="down")]},
                {"heading": f"{len(comments)} comments", "table": table(
                    ["Author", "Comment", "Score", "Posted"],
                    [[link(c["username"], f"/user/{c['username']}"), c["body"], c["score"],
                      c["created"]] for c in comments])},
                {"heading": "Leave a comment", "forms": [form(
                    f"{base}/comment", "Post comment", [field("body", "Comment", "textarea")],
                    id="comment")]}])

    async def comment(request: Request) -> Response:
        user = require_user(request, site.name)
        body = form_text(await read_form(request), "body", 5000)
        with site.db(request) as conn:
            p = load_post(conn, request)
            conn.execute("INSERT INTO comments (post_id, user_id, body, score, created) VALUES "
                         "(?,?,?,1,?)", (p["id"], user_id(conn, user), body, NOW))
        return redirect(f"/f/{p['forum']}/{p['id']}?msg=Your comment has been posted.")

    async def vote(request: Request) -> Response:
        user = require_user(request, site.name)
        value = 1 if form_choice(await read_form(request), "dir", ("up", "down")) == "up" else -1
        with site.db(request) as conn:
            p = load_post(conn, request)
            uid = user_id(conn, user)
            old = conn.execute("SELECT value FROM votes WHERE user_id=? AND post_id=?",
                               (uid, p["id"])).fetchone()
            delta = value - (old[0] if old else 0)
            conn.execute("INSERT OR REPLACE INTO votes VALUES (?,?,?)", (uid, p["id"], value))
            conn.execute("UPDATE posts SET score = score + ? WHERE id = ?", (delta, p["id"]))
        return redirect(f"/f/{p['forum']}/{p['id']}?msg=Your vote has been recorded.")

    async def subscribe(request: Request) -> Response:
        user = require_user(request, site.name)
        await read_form(request)
        name = str(request.path_params["forum"])
        with site.db(request) as conn:
            f = conn.execute("SELECT id FROM forums WHERE name = ?", (name,)).fetchone()
            if f is None:
                raise HTTPException(404, "no such forum")
            conn.execute("INSERT OR IGNORE INTO subscriptions VALUES (?,?)",
                         (user_id(conn, user), f[0]))
        return redirect(f"/f/{name}?msg=You are subscribed to {name}.")

    async def submit(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            names = tuple(r[0] for r in conn.execute("SELECT name FROM forums ORDER BY name"))
            if request.method == "POST":
                f = await read_form(request)
                forum_name = form_choice(f, "forum", names)
                title, body = form_text(f, "title", 200), form_text(f, "body", 10000, False)
                fid = conn.execute("SELECT id FROM forums WHERE name = ?",
                                   (forum_name,)).fetchone()[0]
                cur = conn.execute("INSERT INTO posts (forum_id, user_id, title, body, score, "
                                   "created) VALUES (?,?,?,?,1,?)",
                                   (fid, user_id(conn, user), title, body, NOW))
                return redirect(f"/f/{forum_name}/{cur.lastrowid}?msg=Your post was submitted.")
        chosen = request.query_params.get("forum", "")
        return site.render(request, "page.html", title="Create submission", sections=[
            {"heading": "New submission", "forms": [form("/submit", "Create submission", [
                field("forum", "Forum", "select", chosen, [(n, n) for n in names]),
                field("title", "Title"), field("body", "Body", "textarea")], id="submit")]}])

    async def user_page(request: Request) -> Response:
        name = str(request.path_params["username"])
        with site.db(request) as conn:
            u = conn.execute("SELECT * FROM users WHERE username = ?", (name,)).fetchone()
            if u is None:
                raise HTTPException(404, "no such user")
            posts = conn.execute(f"{_POSTS} WHERE p.user_id = ? ORDER BY p.created DESC",
                                 (u["id"],)).fetchall()
            comments = conn.execute("SELECT c.*, p.title, p.id AS pid, f.name AS forum FROM "
                                    "comments c JOIN posts p ON p.id = c.post_id JOIN forums f ON"
                                    " f.id = p.forum_id WHERE c.user_id = ? ORDER BY c.created "
                                    "DESC", (u["id"],)).fetchall()
        return site.render(request, "page.html", title=name, facts=[
            ("Registered", u["joined"]), ("Biography", u["bio"])], sections=[
            {"heading": "Submissions", "table": table(_COLS, _post_rows(posts))},
            {"heading": "Comments", "table": table(["On", "Comment", "Score"], [
                [link(c["title"], f"/f/{c['forum']}/{c['pid']}"), c["body"], c["score"]]
                for c in comments])}])

    async def profile(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            if request.method == "POST":
                bio = form_text(await read_form(request), "bio", 1000)
                conn.execute("UPDATE users SET bio = ? WHERE username = ?", (bio, user))
                return redirect(f"/user/{user}")
            bio = conn.execute("SELECT bio FROM users WHERE username = ?", (user,)).fetchone()[0]
        return site.render(request, "page.html", title="Edit biography", sections=[
            {"heading": "Biography", "forms": [form("/profile", "Save", [
                field("bio", "Biography", "textarea", bio)], id="bio")]},
            {"heading": "Your pages", "links": [(f"/user/{user}", "My submissions", False)]}])

    async def search(request: Request) -> Response:
        q = query_text(request, "q")
        return listing(request, f"Search results for '{q}'", "p.title LIKE ?", (f"%{q}%",))

    return build_app(site, [
        Route("/", home), Route("/forums", forums), Route("/search", search),
        Route("/submit", submit, methods=["GET", "POST"]),
        Route("/profile", profile, methods=["GET", "POST"]),
        Route("/user/{username}", user_page), Route("/f/{forum}", forum),
        Route("/f/{forum}/subscribe", subscribe, methods=["POST"]),
        Route("/f/{forum}/{pid}", post),
        Route("/f/{forum}/{pid}/comment", comment, methods=["POST"]),
        Route("/f/{forum}/{pid}/vote", vote, methods=["POST"]),
    ])
