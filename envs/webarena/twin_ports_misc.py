"""Official WebArena-Lite templates on the bundled data: subscriptions, cross-site promotion,
route planning, unhappy reviewers, my starred contributions (see :mod:`.twin_ports_shop` for the
shape of a port)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations
from typing import Any

from .sites.data_forum import FORUM_USER
from .sites.data_map import format_minutes, haversine_km, route
from .sites.data_places import FIRST_REAL_CITY
from .taskgen import ROWS, Candidate, click, fact, goto, html_check, select, stop, type_
from .templates_more import _places, _projects
from .twin_ports_shop import A, Dbs, Port, port

G, M, R = "__GITLAB__", "__MAP__", "__REDDIT__"
MAIN = "document.querySelector('main').innerText"


def subscribe_trending(dbs: Dbs) -> Iterator[Candidate]:
    """subscribe to a forum and open its hottest thread (url + program_html)."""
    db = dbs["reddit"]
    subscribed = {r[0] for r in db.execute(
        "SELECT f.name FROM subscriptions s JOIN forums f ON f.id = s.forum_id JOIN users u ON "
        "u.id = s.user_id WHERE u.username = ?", (FORUM_USER[0],))}
    for f in db.execute("SELECT * FROM forums ORDER BY id").fetchall():
        top = db.execute("SELECT * FROM posts WHERE forum_id = ? ORDER BY score DESC, id LIMIT 2",
                         (f["id"],)).fetchall()
        if f["name"] in subscribed or len(top) < 2 or top[0]["score"] == top[1]["score"]:
            continue
        yield port({"subreddit": f["name"]}, R, [
            click("Forums", "link"), click(f["name"], "link"), click("Subscribe", "button"),
            click(top[0]["title"], "link"), stop()], url=f"{R}/f/{f['name']}/{top[0]['id']}",
            html=[html_check(f"{R}/f/{f['name']}", fact("Subscription"), exact="Subscribed")])


def promote_repo(dbs: Dbs) -> Iterator[Candidate]:
    """a forum post promoting a project with the project's own description (url + html)."""
    forums = [r[0] for r in dbs["reddit"].execute("SELECT name FROM forums ORDER BY id")]
    for k, p in enumerate(_projects(dbs["gitlab"])):
        forum = forums[k % len(forums)]
        yield port({"repo": p["path"], "subreddit": forum}, R, [
            click("Submit", "link"), select("Forum", forum), type_("Title", p["path"]),
            type_("Body", p["description"]), click("Create submission", "button"), stop()],
            url=f"{R}/f/{forum}", html=[html_check("last", MAIN, include=[p["description"]])])


def best_order(dbs: Dbs) -> Iterator[Candidate]:
    """the visiting order of places, from the first, that minimizes driving time (string)."""
    places = _places(dbs["map"])
    for k in range(0, len(places) - 3, 5):
        first, *rest = places[k : k + 4]

        def cost(order: tuple[Any, ...], first: Any = first) -> int:
            stops = [first, *order]
            return sum(route(a["lat"], a["lon"], b["lat"], b["lon"], "car")[1]
                       for a, b in zip(stops, stops[1:], strict=False))

        ranked = sorted(permutations(rest), key=cost)
        if cost(ranked[0]) == cost(ranked[1]):
            continue
        names = [first["name"], *(p["name"] for p in ranked[0])]
        listed = ", ".join(p["name"] for p in places[k : k + 4])
        yield port({"place_list": listed}, M, [
            click("Directions", "link"), stop(" -> ".join(names))],
            answers={"fuzzy_match": [" -> ".join(names)]}, login=False)


def hotel_nearby(dbs: Dbs) -> Iterator[Candidate]:
    """the hotel nearest a place, then the walking distance from it to another (string)."""
    places = _places(dbs["map"])
    hotels = [h for h in places if h["category"] == "hotel"]
    for k, p in enumerate(places[::3]):
        near = sorted((haversine_km(p["lat"], p["lon"], h["lat"], h["lon"]), h["id"], h)
                      for h in hotels if h["id"] != p["id"])
        if len(near) < 2 or near[1][0] - near[0][0] < 0.2:
            continue
        h = near[0][2]
        target = places[(k * 7 + 3) % len(places)]
        if target["id"] in (h["id"], p["id"]):
            continue
        km = route(h["lat"], h["lon"], target["lat"], target["lon"], "foot")[0]
        yield port({"place": p["name"], "target1": "hotel", "information": "walking distance",
                    "target2": target["name"]}, M, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"),
            click("Nearby places", "link"), click("Hotel", "link"),
            stop(f"{h['name']}; {km} km")],
            answers={"must_include": [h["name"], f"{km} km"]}, login=False)


def _city_pairs(dbs: Dbs) -> Iterator[tuple[Any, Any, str]]:
    cities = dbs["map"].execute("SELECT * FROM cities WHERE id < ? ORDER BY id",
                                (FIRST_REAL_CITY,)).fetchall()
    for a in cities:
        for b in cities:
            if a["id"] < b["id"]:
                minutes = route(a["lat"], a["lon"], b["lat"], b["lon"], "car")[1]
                yield a, b, format_minutes(minutes)


def city_drive(dbs: Dbs) -> Iterator[Candidate]:
    """the driving time between two cities (string_match; directions accept city names)."""
    for a, b, time in _city_pairs(dbs):
        yield port({"city1": a["name"], "city2": b["name"]}, M, [
            click("Directions", "link"), type_("From", a["name"]), type_("To", b["name"]),
            click("Go", "button"), stop(time)], answers={"fuzzy_match": [time]}, login=False)


def city_route(dbs: Dbs) -> Iterator[Candidate]:
    """the driving route between two cities, on the directions page (program_html)."""
    for a, b, time in _city_pairs(dbs):
        yield port({"city1": a["name"], "city2": b["name"]}, M, [
            click("Directions", "link"), type_("From", a["name"]), type_("To", b["name"]),
            click("Go", "button"), stop()],
            html=[html_check("last", MAIN, include=[a["name"], b["name"], time])], login=False)


def _reviews(dbs: Dbs) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for r in dbs["shopping_admin"].execute(
            "SELECT r.*, p.name AS product FROM reviews r JOIN products p ON p.id = r.product_id "
            "ORDER BY r.id"):
        out.setdefault(r["product"], []).append(r)
    return out


def dissatisfied(dbs: Dbs) -> Iterator[Candidate]:
    """the reviewers who rated a product 1 or 2 stars (string_match)."""
    for product, revs in sorted(_reviews(dbs).items()):
        low = sorted({r["nickname"] for r in revs if r["rating"] <= 2})
        if low and len(low) < len(revs):
            yield port({"product": product}, A, [click("Reviews", "link"), stop(", ".join(low))],
                       answers={"must_include": low})


def most_unhappy(dbs: Dbs) -> Iterator[Candidate]:
    """the name of the reviewer who rated a product lowest, when one did (string_match)."""
    for product, revs in sorted(_reviews(dbs).items()):
        ranked = sorted(revs, key=lambda r: r["rating"])
        if len(ranked) >= 2 and ranked[0]["rating"] < ranked[1]["rating"]:
            name = ranked[0]["nickname"]
            yield port({"information": "name", "product": product}, A, [
                click("Reviews", "link"), stop(name)], answers={"must_include": [name]})


def _said(dbs: Dbs, low: bool) -> Iterator[tuple[str, list[str], int]]:
    """``(product, distinct review bodies, product id)`` of the 1-2 star (``low``) or 5 star
    reviews of products that have 1 to 3 such bodies and other reviews too."""
    ids = {r[0]: r[1] for r in dbs["shopping"].execute("SELECT name, id FROM products")}
    for product, revs in sorted(_reviews(dbs).items()):
        picked = [r for r in revs if (r["rating"] <= 2 if low else r["rating"] == 5)]
        bodies = sorted({r["body"] for r in picked})
        if bodies and len(bodies) <= 3 and len(picked) < len(revs) and product in ids:
            yield product, bodies, ids[product]


def criticisms(dbs: Dbs) -> Iterator[Candidate]:
    """the criticisms (1-2 star review texts) of the product whose page is open (string)."""
    for _product, bodies, pid in _said(dbs, low=True):
        yield port({}, f"__SHOPPING__/product/{pid}", [stop(" ".join(bodies))],
                   answers={"must_include": bodies}, login=False)


def dislikes(dbs: Dbs) -> Iterator[Candidate]:
    """what customers dislike about a product: its 1-2 star review texts (string_match)."""
    for product, bodies, _pid in _said(dbs, low=True):
        yield port({"product": product}, A, [click("Reviews", "link"), stop(" ".join(bodies))],
                   answers={"must_include": bodies})


def likes(dbs: Dbs) -> Iterator[Candidate]:
    """why customers like a product: its 5 star review texts (string_match)."""
    for product, bodies, _pid in _said(dbs, low=False):
        yield port({"product": product}, A, [click("Reviews", "link"), stop(" ".join(bodies))],
                   answers={"must_include": bodies})


def said_about(dbs: Dbs) -> Iterator[Candidate]:
    """what customers say about a brand's product type: its review texts (string_match)."""
    rows = {r[0]: r for r in dbs["shopping"].execute("SELECT name, brand FROM products")}
    for product, revs in sorted(_reviews(dbs).items()):
        bodies = sorted({r["body"] for r in revs})
        if product in rows and len(bodies) <= 3:
            kind = product.split(" ", 2)[2].lower()
            yield port({"product_type": kind, "manufature": rows[product]["brand"]}, A, [
                click("Reviews", "link"), stop(" ".join(bodies))],
                answers={"must_include": bodies})


def summarize(dbs: Dbs) -> Iterator[Candidate]:
    """a product's reviews summed up: its distinct review texts (string_match)."""
    for product, revs in sorted(_reviews(dbs).items()):
        bodies = sorted({r["body"] for r in revs})
        if len(bodies) <= 3:
            yield port({"product": product}, A, [click("Reviews", "link"), stop(" ".join(bodies))],
                       answers={"must_include": bodies})


def starred_contributions(dbs: Dbs) -> Iterator[Candidate]:
    """my projects (I am a member) with more or fewer stars than a bound (string_match)."""
    mine = [p for p in _projects(dbs["gitlab"]) if dbs["gitlab"].execute(
        "SELECT 1 FROM members WHERE project_id = ? AND user_id = 1", (p["id"],)).fetchone()]
    for bound in (100, 250, 500, 800):
        for word, keep in (("more than", lambda s, b=bound: s > b),
                           ("less than", lambda s, b=bound: s < b)):
            names = [p["path"] for p in mine if keep(p["stars"])]
            if names and len(names) < len(mine):
                yield port({"description": f"{word} {bound}"}, G, [
                    goto(f"{G}/explore"), stop(", ".join(names))],
                    answers={"must_include": names})


def wish_this(dbs: Dbs) -> Iterator[Candidate]:
    """add the product whose page is open to the wish list (program_html on the wish list)."""
    for p in dbs["shopping"].execute("SELECT * FROM products WHERE status = 'enabled' ORDER BY "
                                     "id").fetchall()[::7]:
        yield port({}, f"__SHOPPING__/product/{p['id']}", [
            click("Add to Wish List", "button"), stop()],
            html=[html_check("__SHOPPING__/wishlist", ROWS, include=[p["name"]])])


def star_top(dbs: Dbs) -> Iterator[Candidate]:
    """star the n most starred projects (program_html on each project's star count)."""
    top = _projects(dbs["gitlab"])
    top = sorted(top, key=lambda p: (-p["stars"], p["id"]))
    for n in (1, 2, 3, 4, 5):
        if top[n - 1]["stars"] == top[n]["stars"]:
            continue
        steps = []
        for p in top[:n]:
            steps += [goto(f"{G}/{p['path']}"), click("Star", "button")]
        yield port({"number": n}, G, [*steps, stop()], html=[
            html_check(f"{G}/{p['path']}", fact("Stars"), exact=str(p["stars"] + 1))
            for p in top[:n]])


PORTS_MISC: dict[int, Port] = {
    4: subscribe_trending, 117: promote_repo, 65: best_order, 78: hotel_nearby,
    245: dissatisfied, 244: most_unhappy, 289: starred_contributions, 136: criticisms,
    249: dislikes, 250: likes, 51: city_drive, 42: city_route, 135: said_about, 182: summarize,
    196: wish_this, 354: star_top,
}
"""Official template id -> port."""
