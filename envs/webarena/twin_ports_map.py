"""Official WebArena-Lite templates of the map's places, on the bundled data (with the real places
and cities of :mod:`.sites.data_places`): zip codes, the nearest place of a kind, airports,
place pages, facts and coordinates, what is around a place (see :mod:`.twin_port_shape` for the
shape of a port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .sites.data_map import format_minutes, haversine_km, route
from .sites.data_places import FIRST_REAL_PLACE
from .taskgen import (
    Candidate,
    click,
    goto,
    query,
    select,
    stop,
    type_,
)
from .templates_map import place_rows
from .twin_port_shape import Dbs, Port, adapt, port

M = "__MAP__"

CMU = "Carnegie Mellon University"
KIND_WORDS = {"post office": "USPS postal office", "pharmacy": "pharmacy",
              "supermarket": "supermarket", "hotel": "hotel", "police station": "police station",
              "airport": "airport", "university": "university"}
"""Category -> how a task names it."""
AIRPORT_TYPES = {"international airports": "International", "regional airports": "Regional",
                 "airports": ""}
"""How a task names a kind of airport -> the word its name holds."""


def _real(dbs: Dbs) -> list[Any]:
    return dbs["map"].execute("SELECT p.*, c.name AS city FROM places p JOIN cities c ON c.id = "
                              "p.city_id WHERE p.id >= ? ORDER BY p.id",
                              (FIRST_REAL_PLACE,)).fetchall()


def _open(name: str) -> list[dict[str, Any]]:
    return [type_("Search", name, enter=True), click(name, "link")]


def _dirs(a: str, b: str, mode: str = "car") -> dict[str, Any]:
    return goto(query(f"{M}/directions", **{"from": a, "to": b, "mode": mode}))


def _time(a: Any, b: Any, mode: str) -> str:
    return format_minutes(route(a["lat"], a["lon"], b["lat"], b["lon"], mode)[1])


def _nearest(p: Any, others: list[Any], gap_km: float = 0.2) -> Any | None:
    """The place of ``others`` nearest ``p`` (straight line), when clearly the nearest."""
    ranked = sorted(((haversine_km(p["lat"], p["lon"], o["lat"], o["lon"]), o["id"], o)
                     for o in others if o["id"] != p["id"]), key=lambda t: t[:2])
    if not ranked or (len(ranked) > 1 and ranked[1][0] - ranked[0][0] < gap_km):
        return None
    return ranked[0][2]


def zip_code(dbs: Dbs) -> Iterator[Candidate]:
    """a real place's ZIP code, from its address (string_match)."""
    for p in _real(dbs):
        code = p["address"].rsplit(" ", 1)[1]
        yield port({"place": p["name"]}, M, [*_open(p["name"]), stop(code)],
                   answers={"must_include": [code]}, login=False)


def pittsburgh_philadelphia(dbs: Dbs) -> Iterator[Candidate]:
    """the driving time between two real cities (string_match; directions accept cities)."""
    cities = {r["name"]: r for r in dbs["map"].execute("SELECT * FROM cities")}
    time = _time(cities["Pittsburgh"], cities["Philadelphia"], "car")
    yield port({}, M, [click("Directions", "link"), type_("From", "Pittsburgh"),
                       type_("To", "Philadelphia"), click("Go", "button"), stop(time)],
               answers={"fuzzy_match": [time]}, login=False)


def from_cmu_by_mode(dbs: Dbs) -> Iterator[Candidate]:
    """the nearest place of a kind to CMU, timed on foot, by car and by bike (string_match)."""
    places = _real(dbs)
    cmu = next(p for p in places if p["name"] == CMU)
    for kind, words in KIND_WORDS.items():
        near = _nearest(cmu, [p for p in places if p["category"] == kind])
        if near is None:
            continue
        times = [f"{label}: {_time(cmu, near, mode)}"
                 for label, mode in (("Walk", "foot"), ("Drive", "car"), ("Bike", "bike"))]
        yield port({"location": words}, M, [
            *_open(CMU), click("Nearby places", "link"), click(kind.title(), "link"),
            _dirs(CMU, near["name"], "foot"), select("Mode", "Car"), click("Go", "button"),
            select("Mode", "Bicycle"), click("Go", "button"), stop(", ".join(times))],
            answers={"fuzzy_match": times}, login=False)


def _pittsburgh(places: list[Any]) -> list[Any]:
    return [p for p in places if p["city"] == "Pittsburgh" and p["category"] in
            ("university", "hotel")]


def nearest_walkable(dbs: Dbs) -> Iterator[Candidate]:
    """the nearest place of a kind within a walking time of a place, and its address (string)."""
    places = _real(dbs)
    for start in _pittsburgh(places):
        for kind, words in KIND_WORDS.items():
            near = _nearest(start, [p for p in places if p["category"] == kind])
            if near is None:
                continue
            walk = route(start["lat"], start["lon"], near["lat"], near["lon"], "foot")[1]
            limit = next((n for n in (10, 15, 20, 30, 45) if walk < n), None)
            if limit is None:
                continue
            street, city, zone = near["address"].split(", ")
            yield port({"location": words, "location2": start["name"],
                        "condition": f"I can walk within {limit}mins"}, M, [
                *_open(start["name"]), click("Nearby places", "link"),
                click(kind.title(), "link"), _dirs(start["name"], near["name"], "foot"),
                stop(f"{near['name']}, {near['address']}")],
                answers={"must_include": [near["name"], street, city, zone.split()[1]]},
                login=False)


def in_an_hour(dbs: Dbs) -> Iterator[Candidate]:
    """whether the one place of a kind in Pittsburgh is an hour's drive away (string_match)."""
    places = _real(dbs)
    for kind in ("police station", "airport"):
        target = [p for p in places if p["category"] == kind and p["city"] == "Pittsburgh"]
        if len(target) != 1:
            continue
        for start in places:
            minutes = route(start["lat"], start["lon"], target[0]["lat"], target[0]["lon"],
                            "car")[1]
            if start["id"] == target[0]["id"] or abs(minutes - 60) < 3:
                continue
            answer = "Yes" if minutes <= 60 else "No"
            yield port({"place": kind, "location": start["name"]}, M, [
                _dirs(start["name"], target[0]["name"]), stop(answer)],
                answers={"exact_match": answer}, login=False)


def airports_within(dbs: Dbs) -> Iterator[Candidate]:
    """the full addresses of the airports of a kind within a driving distance (string_match)."""
    places = _real(dbs)
    airports = [p for p in places if p["category"] == "airport"]
    for start in _pittsburgh(places):
        for words, marker in AIRPORT_TYPES.items():
            for radius in (20, 50, 80):
                dist = {a["id"]: route(start["lat"], start["lon"], a["lat"], a["lon"], "car")[0]
                        for a in airports if marker in a["name"]}
                inside = [a for a in airports if a["id"] in dist and dist[a["id"]] <= radius]
                if not inside or any(abs(d - radius) < 1 for d in dist.values()):
                    continue
                yield port({"airport_type": words, "radius": f"{radius} km",
                            "start": start["name"]}, M, [
                    type_("Search", "airport", enter=True),
                    *[_dirs(start["name"], a["name"]) for a in inside],
                    stop("; ".join(f"{a['name']}, {a['address']}" for a in inside))],
                    answers={"must_include": [a["address"] for a in inside]}, login=False)


def immigration_office(dbs: Dbs) -> Iterator[Candidate]:
    """USCIS near CMU, and the walk from it to the nearest Social Security office (string)."""
    places = _real(dbs)
    uscis = next(p for p in places if p["name"].startswith("USCIS"))
    ssa = _nearest(uscis, [p for p in places if p["name"].startswith("Social Security")])
    if ssa is None:
        return
    km = route(uscis["lat"], uscis["lon"], ssa["lat"], ssa["lon"], "foot")[0]
    yield port({}, M, [
        *_open(CMU), click("Nearby places", "link"), click("Government Office", "link"),
        _dirs(uscis["name"], ssa["name"], "foot"), stop(f"{uscis['name']}; {km} km")],
        answers={"must_include": [uscis["name"], f"{km} km"]}, login=False)


def airport_hyatt(dbs: Dbs) -> Iterator[Candidate]:
    """the Hyatt nearest the airport, and the supermarkets 15 minutes' drive from it (string)."""
    places = _real(dbs)
    airport = next(p for p in places if p["name"] == "Pittsburgh International Airport")
    hyatt = _nearest(airport, [p for p in places if "Hyatt" in p["name"]])
    if hyatt is None:
        return
    shops = [s for s in places if s["category"] == "supermarket"
             and route(hyatt["lat"], hyatt["lon"], s["lat"], s["lon"], "car")[1] <= 15]
    if not shops:
        return
    yield port({}, M, [
        *_open(airport["name"]), click("Nearby places", "link"), click("Hotel", "link"),
        click(hyatt["name"], "link"), click("Nearby places", "link"),
        click("Supermarket", "link"), *[_dirs(hyatt["name"], s["name"]) for s in shops],
        stop("; ".join([hyatt["name"], *(s["name"] for s in shops)]))],
        answers={"must_include": [hyatt["name"], *(s["name"] for s in shops)]}, login=False)


def national_park(dbs: Dbs) -> Iterator[Candidate]:
    """the national park nearest a city, and the time to bike there (string_match)."""
    parks = [p for p in _real(dbs) if p["category"] == "national park"]
    for city in dbs["map"].execute("SELECT * FROM cities ORDER BY id").fetchall():
        park = _nearest(city, parks, gap_km=20)
        if park is None or city["name"] in park["address"]:
            continue
        time = _time(city, park, "bike")
        yield port({"city": city["name"]}, M, [
            type_("Search", "national park", enter=True), _dirs(city["name"], park["name"],
                                                                "bike"),
            stop(f"{park['name']}; {time}")],
            answers={"must_include": [park["name"]], "fuzzy_match": [time]}, login=False)


def description_page(dbs: Dbs) -> Iterator[Candidate]:
    """twin 406: a place's page (url_match)."""
    yield from adapt(406, dbs, lambda s: {"location": s["place"]})


def closest(dbs: Dbs) -> Iterator[Candidate]:
    """twin 403: the closest place of a category to a place (string_match)."""
    yield from adapt(403, dbs, lambda s: {"place1": s["category"], "place2": s["place"]})


def information(dbs: Dbs) -> Iterator[Candidate]:
    """a place's opening hours, address or coordinates (string_match)."""
    for p in place_rows(dbs["map"]):
        for info, value in (("opening hours", p["opening_hours"]), ("address", p["address"]),
                            ("coordinates", f"{p['lat']:.5f}, {p['lon']:.5f}")):
            yield port({"information": info, "location": p["name"]}, M, [
                type_("Search", p["name"], enter=True), click(p["name"], "link"), stop(value)],
                answers={"must_include": [value]}, login=False)


def coordinates(dbs: Dbs) -> Iterator[Candidate]:
    """a place's coordinates in decimal degrees (string_match)."""
    for p in place_rows(dbs["map"]):
        lat, lon = f"{p['lat']:.5f}", f"{p['lon']:.5f}"
        yield port({"location": p["name"]}, M, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"),
            stop(f"{lat}, {lon}")], answers={"must_include": [lat, lon]}, login=False)


def around(dbs: Dbs) -> Iterator[Candidate]:
    """the places of a category near a place (url_match on the nearby page)."""
    for p in place_rows(dbs["map"])[::2]:
        for cat in ("cafe", "park", "museum", "library", "restaurant", "hotel"):
            yield port({"space": cat, "location": p["name"]}, M, [
                type_("Search", p["name"], enter=True), click(p["name"], "link"),
                click("Nearby places", "link"), click(cat.title(), "link"), stop()],
                url=query(f"{M}/place/{p['id']}/nearby", category=cat), login=False)


PORTS_MAP: dict[int, Port] = {
    52: description_page, 69: closest, 501: information, 46: coordinates, 59: around, 70: zip_code,
    47: pittsburgh_philadelphia, 35: from_cmu_by_mode, 39: nearest_walkable, 77: in_an_hour,
    79: airports_within, 781: immigration_office, 782: airport_hyatt, 85: national_park,
}
"""Official template id -> port."""
