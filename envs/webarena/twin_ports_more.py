"""Official WebArena-Lite templates of the code-hosting site, the map and the forum, on the
bundled data (see :mod:`.twin_ports_shop` for the shape of a port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .sites.data_gitlab import GITLAB_USER
from .sites.data_map import format_minutes, haversine_km, route
from .sites.gitlab_projects import ssh_clone_url
from .taskgen import Candidate, click, fact, html_check, query, stop, type_
from .templates_more import _directions, _places, _projects
from .twin_ports_shop import Dbs, Port, adapt, port

G, M, R = "__GITLAB__", "__MAP__", "__REDDIT__"


def assign_by_title(dbs: Dbs) -> Iterator[Candidate]:
    """twin 311: assign an issue, named by its title, to a user (program_html)."""
    db = dbs["gitlab"]
    titles = {(r[0], r[1]): r[2] for r in db.execute(
        "SELECT p.namespace || '/' || p.name, i.iid, i.title FROM issues i JOIN projects p ON "
        "p.id = i.project_id")}
    yield from adapt(311, dbs, lambda s: {
        "issue": titles[(s["project"], int(s["iid"]))], "repo": s["project"],
        "account": s["user"]}, keep=("program_html",))


def invite_developer(dbs: Dbs) -> Iterator[Candidate]:
    """twin 307 (role Developer): invite a user as collaborator (program_html)."""
    yield from adapt(307, dbs, lambda s: {"collaborator_account_list": s["user"],
                                          "repo": s["project"]}
                     if s["role"] == "Developer" else None)


def add_with_role(dbs: Dbs) -> Iterator[Candidate]:
    """twin 307: add a user to a project with a role (program_html)."""
    yield from adapt(307, dbs, lambda s: {"repo": s["project"], "role": s["role"].lower(),
                                          "user_list": s["user"]})


def labelled(dbs: Dbs) -> Iterator[Candidate]:
    """twin 310: a project's issues with a label (url_match)."""
    yield from adapt(310, dbs, lambda s: {"label": s["label"], "repo": s["project"]})


def who_has_access(dbs: Dbs) -> Iterator[Candidate]:
    """the other members of one of my projects (string_match)."""
    db = dbs["gitlab"]
    for p in _projects(db):
        names = [r[0] for r in db.execute(
            "SELECT u.username FROM members m JOIN users u ON u.id = m.user_id WHERE "
            "m.project_id = ? ORDER BY u.username", (p["id"],))]
        if GITLAB_USER[0] in names and len(names) > 1:
            others = [n for n in names if n != GITLAB_USER[0]]
            yield port({"repo": p["name"]}, G, [
                type_("Search", p["name"], enter=True), click(f"{p['namespace']} / {p['name']}"),
                click("Members", "link"), stop(", ".join(others))],
                answers={"must_include": others})


def public_projects(dbs: Dbs) -> Iterator[Candidate]:
    """the explore page (url_match)."""
    yield port({}, G, [click("Projects", "link"), stop()], url=f"{G}/explore")


def ssh_clone(dbs: Dbs) -> Iterator[Candidate]:
    """the SSH clone command of a project, from its page (string_match)."""
    for p in _projects(dbs["gitlab"]):
        cmd = f"git clone {ssh_clone_url(p)}"
        yield port({"repo": p["name"]}, G, [
            type_("Search", p["name"], enter=True), click(f"{p['namespace']} / {p['name']}"),
            stop(cmd)], answers={"must_include": [ssh_clone_url(p)]})


def drive_time(dbs: Dbs) -> Iterator[Candidate]:
    """twin 401: the driving time between two places (string_match)."""
    yield from adapt(401, dbs, lambda s: {"location1": s["a"], "location2": s["b"]})


def hotel_drive(dbs: Dbs) -> Iterator[Candidate]:
    """the driving time from a hotel to a place (string_match)."""
    places = _places(dbs["map"])
    hotels = [p for p in places if p["category"] == "hotel"]
    for h in hotels:
        for p in places[:: max(1, len(places) // 6)]:
            if p["id"] != h["id"]:
                minutes = format_minutes(route(h["lat"], h["lon"], p["lat"], p["lon"], "car")[1])
                yield port({"hotel": h["name"], "place": p["name"]}, M, [
                    *_directions(h["name"], p["name"]), stop(minutes)],
                    answers={"fuzzy_match": [minutes]}, login=False)


def description_page(dbs: Dbs) -> Iterator[Candidate]:
    """twin 406: a place's page (url_match)."""
    yield from adapt(406, dbs, lambda s: {"location": s["place"]})


def closest(dbs: Dbs) -> Iterator[Candidate]:
    """twin 403: the closest place of a category to a place (string_match)."""
    yield from adapt(403, dbs, lambda s: {"place1": s["category"], "place2": s["place"]})


def information(dbs: Dbs) -> Iterator[Candidate]:
    """a place's opening hours, address or coordinates (string_match)."""
    for p in _places(dbs["map"]):
        for info, value in (("opening hours", p["opening_hours"]), ("address", p["address"]),
                            ("coordinates", f"{p['lat']:.5f}, {p['lon']:.5f}")):
            yield port({"information": info, "location": p["name"]}, M, [
                type_("Search", p["name"], enter=True), click(p["name"], "link"), stop(value)],
                answers={"must_include": [value]}, login=False)


def coordinates(dbs: Dbs) -> Iterator[Candidate]:
    """a place's coordinates in decimal degrees (string_match)."""
    for p in _places(dbs["map"]):
        lat, lon = f"{p['lat']:.5f}", f"{p['lon']:.5f}"
        yield port({"location": p["name"]}, M, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"),
            stop(f"{lat}, {lon}")], answers={"must_include": [lat, lon]}, login=False)


def _pairs(dbs: Dbs) -> Iterator[tuple[dict[str, object], dict[str, object]]]:
    places = _places(dbs["map"])
    for k in range(1, len(places) - 1, 3):
        yield places[k], places[k + 1]


def _route(a: Any, b: Any, mode: str) -> Any:
    """The route between places ``a`` and ``b`` (rows with ``lat``/``lon``) for ``mode``."""
    return route(float(a["lat"]), float(a["lon"]), float(b["lat"]), float(b["lon"]), mode)


def walk_time(dbs: Dbs) -> Iterator[Candidate]:
    """the walking time between two places (string_match)."""
    for a, b in _pairs(dbs):
        minutes = format_minutes(_route(a, b, "foot")[1])
        yield port({"start": a["name"], "end": b["name"]}, M, [
            *_directions(str(a["name"]), str(b["name"]), "Foot"), stop(minutes)],
            answers={"fuzzy_match": [minutes]}, login=False)


def walk_distance(dbs: Dbs) -> Iterator[Candidate]:
    """the walking distance between two places (string_match)."""
    for a, b in _pairs(dbs):
        km = _route(a, b, "foot")[0]
        yield port({"location/address_1": a["name"], "location/address_2": b["name"]}, M, [
            *_directions(str(a["name"]), str(b["name"]), "Foot"), stop(f"{km} km")],
            answers={"must_include": [f"{km} km"]}, login=False)


def walk_vs_drive(dbs: Dbs) -> Iterator[Candidate]:
    """walking minus driving time between two places (string_match)."""
    for a, b in _pairs(dbs):
        walk = _route(a, b, "foot")[1]
        drive = _route(a, b, "car")[1]
        diff = format_minutes(walk - drive)
        yield port({"start": a["name"], "end": b["name"]}, M, [
            *_directions(str(a["name"]), str(b["name"]), "Foot"), stop(diff)],
            answers={"fuzzy_match": [diff]}, login=False)


def nearest_walk(dbs: Dbs) -> Iterator[Candidate]:
    """the nearest place of a category and the walking distance to it (string_match)."""
    places = _places(dbs["map"])
    for p in places[::3]:
        for cat in ("cafe", "park", "museum", "library"):
            others = sorted((haversine_km(p["lat"], p["lon"], o["lat"], o["lon"]), o["id"], o)
                            for o in places if o["category"] == cat and o["id"] != p["id"])
            if len(others) < 2 or others[1][0] - others[0][0] < 0.2:
                continue
            o = others[0][2]
            km = route(p["lat"], p["lon"], o["lat"], o["lon"], "foot")[0]
            yield port({"places": cat, "start": p["name"]}, M, [
                type_("Search", p["name"], enter=True), click(p["name"], "link"),
                click("Nearby places", "link"), click(cat.title(), "link"),
                stop(f"{o['name']}, {km} km")],
                answers={"must_include": [o["name"], f"{km} km"]}, login=False)


def directions(dbs: Dbs) -> Iterator[Candidate]:
    """twin 405: the walking directions between two places (url_match)."""
    yield from adapt(405, dbs, lambda s: {"location/address_1": s["a"],
                                          "location/address_2": s["b"],
                                          "transportation": "walking"})


def around(dbs: Dbs) -> Iterator[Candidate]:
    """the places of a category near a place (url_match on the nearby page)."""
    for p in _places(dbs["map"])[::2]:
        for cat in ("cafe", "park", "museum", "library", "restaurant", "hotel"):
            yield port({"space": cat, "location": p["name"]}, M, [
                type_("Search", p["name"], enter=True), click(p["name"], "link"),
                click("Nearby places", "link"), click(cat.title(), "link"), stop()],
                url=query(f"{M}/place/{p['id']}/nearby", category=cat), login=False)


def walk_then_drive(dbs: Dbs) -> Iterator[Candidate]:
    """walking time A to B plus driving time B to C (string_match)."""
    places = _places(dbs["map"])
    for k in range(0, len(places) - 2, 4):
        a, b, c = places[k], places[k + 1], places[k + 2]
        total = format_minutes(_route(a, b, "foot")[1]
                               + route(b["lat"], b["lon"], c["lat"], c["lon"], "car")[1])
        yield port({"place_A": a["name"], "place_B": b["name"], "place_C": c["name"]}, M, [
            *_directions(a["name"], b["name"], "Foot"), stop(total)],
            answers={"fuzzy_match": [total]}, login=False)


def bio(dbs: Dbs) -> Iterator[Candidate]:
    """twin 507: change my forum biography (program_html)."""
    yield from adapt(507, dbs, lambda s: {"content": s["bio"]})


def upvote_newest(dbs: Dbs) -> Iterator[Candidate]:
    """upvote the newest post of a forum (program_html on the post's score)."""
    db = dbs["reddit"]
    for f in db.execute("SELECT * FROM forums ORDER BY id").fetchall():
        p = db.execute("SELECT * FROM posts WHERE forum_id = ? ORDER BY created DESC, id DESC "
                       "LIMIT 1", (f["id"],)).fetchone()
        if p is None:
            continue
        url = f"{R}/f/{f['name']}/{p['id']}"
        yield port({"subreddit": f["name"]}, R, [
            click("Forums", "link"), click(f["name"], "link"), click("Sort by New", "link"),
            click(p["title"], "link"), click("Upvote", "button"), stop()],
            html=[html_check(url, fact("Score"), exact=str(p["score"] + 1))])


PORTS_MORE: dict[int, Port] = {
    999: assign_by_title, 293: invite_developer, 351: add_with_role, 349: labelled,
    298: who_has_access, 325: public_projects, 329: ssh_clone, 36: drive_time, 64: hotel_drive,
    52: description_page, 69: closest, 501: information, 46: coordinates, 68: walk_time,
    58: walk_distance, 73: walk_vs_drive, 66: nearest_walk, 54: directions, 59: around,
    72: walk_then_drive, 6: bio, 22: upvote_newest,
}
"""Official template id -> port, code hosting, map and forum."""
