"""The wiki (``__WIKIPEDIA__``, Kiwix-like): an article per city and notable place of the map's
world, title search, and an index of all articles."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .common import Site, build_app, query_text, redirect
from .state import SessionStore
from .views import link, pager, pager_view, table


def article_path(title: str) -> str:
    """URL path of an article: ``/wiki/Port_Avalon``."""
    return "/wiki/" + title.replace(" ", "_")


def make_app(store: SessionStore) -> Starlette:
    """The wiki app over ``store``."""
    site = Site("wikipedia", "Wikipedia", store, nav=[("/index", "All articles")],
                search=("/search", "Search Wikipedia"))

    async def home(request: Request) -> Response:
        return site.render(request, "page.html", title="Welcome to Wikipedia",
                           intro="The free encyclopedia of the bundled world.", sections=[
                               {"heading": "Browse", "links": [("/index", "All articles",
                                                                 False)]}])

    async def index(request: Request) -> Response:
        with site.db(request) as conn:
            total = conn.execute("SELECT COUNT(*) FROM articles").fetchone()[0]
            pg = pager(request, total, 50)
            rows = conn.execute("SELECT title FROM articles ORDER BY title LIMIT ? OFFSET ?",
                                (pg.per_page, pg.offset)).fetchall()
        return site.render(request, "page.html", title="All articles", sections=[
            {"heading": "Articles", "links": [(article_path(r[0]), r[0], False) for r in rows]}],
            pager=pager_view(request, pg))

    async def article(request: Request) -> Response:
        title = str(request.path_params["title"]).replace("_", " ")
        with site.db(request) as conn:
            a = conn.execute("SELECT * FROM articles WHERE title = ?", (title,)).fetchone()
        if a is None:
            raise HTTPException(404, "Wikipedia does not have an article with this exact name.")
        info = [tuple(line.split("=", 1)) for line in a["infobox"].splitlines() if "=" in line]
        return site.render(request, "page.html", title=a["title"], intro=a["summary"],
                           facts=info, sections=[{"heading": "Description", "text": a["body"]}])

    async def search(request: Request) -> Response:
        q = query_text(request, "q")
        with site.db(request) as conn:
            exact = conn.execute("SELECT title FROM articles WHERE lower(title) = lower(?)",
                                 (q,)).fetchone()
            if exact is not None:
                return redirect(article_path(exact[0]))
            total = conn.execute("SELECT COUNT(*) FROM articles WHERE title LIKE ? OR summary "
                                 "LIKE ?", (f"%{q}%", f"%{q}%")).fetchone()[0]
            pg = pager(request, total)
            rows = conn.execute("SELECT title, summary FROM articles WHERE title LIKE ? OR "
                                "summary LIKE ? ORDER BY title LIMIT ? OFFSET ?",
                                (f"%{q}%", f"%{q}%", pg.per_page, pg.offset)).fetchall()
        return site.render(request, "page.html", title=f"Search results for '{q}'", sections=[
            {"heading": "Results", "table": table(["Article", "Summary"], [
                [link(r[0], article_path(r[0])), r[1]] for r in rows])}],
            pager=pager_view(request, pg))

    return build_app(site, [
        Route("/", home), Route("/index", index), Route("/search", search),
        Route("/wiki/{title}", article),
    ])
