"""The forum's posts and everything a logged-in user writes: a post with its comments, the
comment and vote forms, subscriptions, new submissions and the biography. Writing needs the
login."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    form_choice,
    form_text,
    path_int,
    read_form,
    redirect,
    require_user,
)
from .forum_listings import POSTS_QUERY
from .views import field, form, link, table

NOW = "2024-01-01 12:00"
"""The forum's clock: new posts and comments carry this time."""


def user_id(conn: Any, username: str) -> int:
    """The id of ``username`` (403 when there is none)."""
    row = conn.execute("SELECT id FROM users WHERE username = ?", (username,)).fetchone()
    if row is None:
        raise HTTPException(403, "unknown user")
    return int(row[0])


def post_pages(site: Site) -> Pages:
    """The post and writing pages' endpoints by name."""

    def load_post(conn: Any, request: Request) -> Any:
        pid = path_int(request, "pid")
        post = conn.execute(f"{POSTS_QUERY} WHERE p.id = ? AND f.name = ?",
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

    return {"post": post, "comment": comment, "vote": vote, "subscribe": subscribe,
            "submit": submit, "profile": profile}
