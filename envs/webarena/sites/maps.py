"""The map (``__MAP__``, OpenStreetMap-like): place search, place pages, nearby places and
directions between two places with distance and travel time by car, bike or foot."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .common import Site, build_app, path_int, query_choice, query_text
from .data_map import CATEGORIES, format_minutes, haversine_km, route
from .data_places import REAL_CATEGORIES
from .state import SessionStore
from .views import field, form, link, pager, pager_view, table

KINDS = (*CATEGORIES, *REAL_CATEGORIES)
"""Place categories, generated and real."""
MODES = {"car": "Car", "bike": "Bicycle", "foot": "Foot"}
_PLACES = "SELECT p.*, c.name AS city FROM places p JOIN cities c ON c.id = p.city_id "


def make_app(store: SessionStore) -> Starlette:
    """The map app over ``store``."""
    site = Site("map", "OpenStreetMap", store, nav=[("/directions", "Directions")],
                search=("/search", "Search places"))

    def find(conn: Any, text: str) -> tuple[Any, list[Any]]:
        """The place named ``text`` (exact, else a city of that name, else unique match), and
        candidates when ambiguous."""
        exact = conn.execute(f"{_PLACES} WHERE lower(p.name) = lower(?)", (text,)).fetchone()
        if exact is not None:
            return exact, []
        city = conn.execute("SELECT id, name, lat, lon, name AS address FROM cities WHERE "
                            "lower(name) = lower(?)", (text,)).fetchone()
        if city is not None:
            return city, []
        rows = conn.execute(f"{_PLACES} WHERE p.name LIKE ? ORDER BY p.name LIMIT 10",
                            (f"%{text}%",)).fetchall()
        return (rows[0], []) if len(rows) == 1 else (None, rows)

    async def home(request: Request) -> Response:
        return site.render(request, "page.html", title="OpenStreetMap", sections=[
            {"heading": "Browse by category", "links": [
                (f"/search?category={c}", c.title(), False) for c in KINDS]},
            {"heading": "Find directions", "links": [("/directions", "Directions", False)]}])

    async def search(request: Request) -> Response:
        q = query_text(request, "q")
        cat = query_choice(request, "category", ("", *KINDS))
        where = "(p.name LIKE ? OR p.category LIKE ? OR c.name LIKE ? OR p.address LIKE ?)"
        args: list[Any] = [f"%{q}%"] * 4
        if cat:
            where += " AND p.category = ?"
            args.append(cat)
        with site.db(request) as conn:
            total = conn.execute("SELECT COUNT(*) FROM places p JOIN cities c ON c.id = "
                                 f"p.city_id WHERE {where}", args).fetchone()[0]
            pg = pager(request, total)
            rows = conn.execute(f"{_PLACES} WHERE {where} ORDER BY p.name LIMIT ? OFFSET ?",
                                (*args, pg.per_page, pg.offset)).fetchall()
        return site.render(request, "page.html", title="Search Results",
                           intro=f"{total} results", sections=[
            {"heading": "Results", "table": table(["Name", "Type", "Address"], [
                [link(r["name"], f"/place/{r['id']}"), r["category"].title(), r["address"]]
                for r in rows])}], pager=pager_view(request, pg))

    async def place(request: Request) -> Response:
        pid = path_int(request, "pid")
        with site.db(request) as conn:
            r = conn.execute(f"{_PLACES} WHERE p.id = ?", (pid,)).fetchone()
        if r is None:
            raise HTTPException(404, "no such place")
        return site.render(request, "page.html", title=r["name"], facts=[
            ("Type", r["category"].title()), ("Address", r["address"]), ("City", r["city"]),
            ("Coordinates", f"{r['lat']:.5f}, {r['lon']:.5f}"),
            ("Opening hours", r["opening_hours"])], sections=[
            {"heading": "Actions", "links": [
                (f"/directions?from={r['name']}", "Directions from here", False),
                (f"/directions?to={r['name']}", "Directions to here", False),
                (f"/place/{pid}/nearby", "Nearby places", False)]}])

    async def nearby(request: Request) -> Response:
        pid = path_int(request, "pid")
        cat = query_choice(request, "category", ("", *KINDS))
        with site.db(request) as conn:
            r = conn.execute(f"{_PLACES} WHERE p.id = ?", (pid,)).fetchone()
            if r is None:
                raise HTTPException(404, "no such place")
            rows = conn.execute(f"{_PLACES} WHERE p.id != ? AND (? = '' OR p.category = ?)",
                                (pid, cat, cat)).fetchall()
        near = sorted(rows, key=lambda o: haversine_km(r["lat"], r["lon"], o["lat"], o["lon"]))
        cats = [(f"/place/{pid}/nearby?category={c}", c.title(), c == cat) for c in KINDS]
        return site.render(request, "page.html", title=f"Places near {r['name']}", sections=[
            {"heading": "Filter by type", "links": cats},
            {"heading": "Nearest places", "table": table(["Name", "Type", "Distance"], [
                [link(o["name"], f"/place/{o['id']}"), o["category"].title(),
                 f"{haversine_km(r['lat'], r['lon'], o['lat'], o['lon']):.1f} km"]
                for o in near[:10]])}])

    async def directions(request: Request) -> Response:
        src, dst = query_text(request, "from"), query_text(request, "to")
        mode = query_choice(request, "mode", tuple(MODES))
        sections: list[dict[str, Any]] = [{"heading": "Directions", "forms": [form(
            "/directions", "Go", [field("from", "From", value=src), field("to", "To", value=dst),
                                  field("mode", "Mode", "select", mode, list(MODES.items()))],
            method="get", id="dir")]}]
        if src and dst:
            with site.db(request) as conn:
                a, a_opts = find(conn, src)
                b, b_opts = find(conn, dst)
            if a is None or b is None:
                opts = a_opts if a is None else b_opts
                sections.append({"heading": "Did you mean", "table": table(["Name", "Address"], [
                    [link(o["name"], f"/place/{o['id']}"), o["address"]] for o in opts])} if opts
                    else {"heading": "No route", "text": "No place matches your search."})
            else:
                km, minutes = route(a["lat"], a["lon"], b["lat"], b["lon"], mode)
                sections.append({"heading": "Route", "facts": [
                    ("From", a["name"]), ("To", b["name"]), ("Mode", MODES[mode]),
                    ("Distance", f"{km} km"), ("Time", format_minutes(minutes))]})
        return site.render(request, "page.html", title="Directions", sections=sections)

    return build_app(site, [
        Route("/", home), Route("/search", search), Route("/place/{pid}", place),
        Route("/place/{pid}/nearby", nearby), Route("/directions", directions),
    ])
