"""The forum's listings: the front page, the list of forums, a forum's submissions (sorted
hot/new/top), search results and a user's page with their submissions and comments."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    current_user,
    query_choice,
    query_text,
)
from .views import form, link, pager, pager_view, sort_links, table

SORTS = {"hot": "Hot", "new": "New", "top": "Top"}
_ORDER = {"hot": "p.score DESC, p.id", "new": "p.created DESC, p.id DESC",
          "top": "p.score DESC, p.id"}
POSTS_QUERY = ("SELECT p.*, u.username, f.name AS forum, (SELECT COUNT(*) FROM comments c "
               "WHERE c.post_id = p.id) AS n FROM posts p JOIN users u ON u.id = p.user_id JOIN "
               "forums f ON f.id = p.forum_id ")
"""The posts with their author, forum and comment count (``n``); callers add the WHERE."""


def post_rows(rows: list[Any]) -> list[list[Any]]:
    """The submission table's rows of ``rows`` (read with :data:`POSTS_QUERY`)."""
    return [[link(r["title"], f"/f/{r['forum']}/{r['id']}"), link(r["forum"], f"/f/{r['forum']}"),
             link(r["username"], f"/user/{r['username']}"), r["score"], r["n"], r["created"]]
            for r in rows]


POST_COLUMNS = ["Title", "Forum", "Submitted by", "Score", "Comments", "Submitted"]
"""The submission table's headings (:func:`post_rows` fills them)."""


def listing_pages(site: Site) -> Pages:
    """The listing pages' endpoints by name."""

    def listing(request: Request, title: str, where: str, args: tuple[Any, ...],
                extra: list[dict[str, Any]] | None = None) -> Response:
        sort = query_choice(request, "sort", tuple(SORTS))
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM posts p WHERE {where}", args).fetchone()[0]
            p = pager(request, total, 25)
            rows = conn.execute(f"{POSTS_QUERY} WHERE {where} ORDER BY {_ORDER[sort]} LIMIT ? "
                                "OFFSET ?", (*args, p.per_page, p.offset)).fetchall()
        return site.render(request, "page.html", title=title, sections=[
            *(extra or []), {"heading": "Sort", "links": sort_links(request, "sort", SORTS, sort)},
            {"heading": "Submissions", "table": table(POST_COLUMNS, post_rows(rows))}],
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

    async def search(request: Request) -> Response:
        q = query_text(request, "q")
        return listing(request, f"Search results for '{q}'", "p.title LIKE ?", (f"%{q}%",))

    async def user_page(request: Request) -> Response:
        name = str(request.path_params["username"])
        with site.db(request) as conn:
            u = conn.execute("SELECT * FROM users WHERE username = ?", (name,)).fetchone()
            if u is None:
                raise HTTPException(404, "no such user")
            posts = conn.execute(f"{POSTS_QUERY} WHERE p.user_id = ? ORDER BY p.created DESC",
                                 (u["id"],)).fetchall()
            comments = conn.execute("SELECT c.*, p.title, p.id AS pid, f.name AS forum FROM "
                                    "comments c JOIN posts p ON p.id = c.post_id JOIN forums f ON"
                                    " f.id = p.forum_id WHERE c.user_id = ? ORDER BY c.created "
                                    "DESC", (u["id"],)).fetchall()
        return site.render(request, "page.html", title=name, facts=[
            ("Registered", u["joined"]), ("Biography", u["bio"])], sections=[
            {"heading": "Submissions", "table": table(POST_COLUMNS, post_rows(posts))},
            {"heading": "Comments", "table": table(["On", "Comment", "Score"], [
                [link(c["title"], f"/f/{c['forum']}/{c['pid']}"), c["body"], c["score"]]
                for c in comments])}])

    return {"home": home, "forums": forums, "forum": forum, "search": search,
            "user_page": user_page}
