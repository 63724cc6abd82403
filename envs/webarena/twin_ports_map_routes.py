"""Official WebArena-Lite templates of travel on the map, on the bundled data: driving and walking
times and distances, walking versus driving, directions, the best order of visits, hotels near
or within a walk, city-to-city drives and routes (see :mod:`.twin_port_shape` for the shape of a
port)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations
from typing import Any

from .sites.data_map import format_minutes, haversine_km, route
from .sites.data_places import FIRST_REAL_CITY
from .taskgen import (
    Candidate,
    click,
    html_check,
    stop,
    type_,
)
from .templates_map import directions_steps, place_rows
from .twin_port_shape import Dbs, Port, adapt, port

M = "__MAP__"
MAIN = "document.querySelector('main').innerText"

def drive_time(dbs: Dbs) -> Iterator[Candidate]:
    """twin 401: the driving time between two places (string_match)."""
    yield from adapt(401, dbs, lambda s: {"location1": s["a"], "location2": s["b"]})


def hotel_drive(dbs: Dbs) -> Iterator[Candidate]:
    """the driving time from a hotel to a place (string_match)."""
    places = place_rows(dbs["map"])
    hotels = [p for p in places if p["category"] == "hotel"]
    for h in hotels:
        for p in places[:: max(1, len(places) // 6)]:
            if p["id"] != h["id"]:
                minutes = format_minutes(route(h["lat"], h["lon"], p["lat"], p["lon"], "car")[1])
                yield port({"hotel": h["name"], "place": p["name"]}, M, [
                    *directions_steps(h["name"], p["name"]), stop(minutes)],
                    answers={"fuzzy_match": [minutes]}, login=False)


def _pairs(dbs: Dbs) -> Iterator[tuple[dict[str, object], dict[str, object]]]:
    places = place_rows(dbs["map"])
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
            *directions_steps(str(a["name"]), str(b["name"]), "Foot"), stop(minutes)],
            answers={"fuzzy_match": [minutes]}, login=False)


def walk_distance(dbs: Dbs) -> Iterator[Candidate]:
    """the walking distance between two places (string_match)."""
    for a, b in _pairs(dbs):
        km = _route(a, b, "foot")[0]
        yield port({"location/address_1": a["name"], "location/address_2": b["name"]}, M, [
            *directions_steps(str(a["name"]), str(b["name"]), "Foot"), stop(f"{km} km")],
            answers={"must_include": [f"{km} km"]}, login=False)


def walk_vs_drive(dbs: Dbs) -> Iterator[Candidate]:
    """walking minus driving time between two places (string_match)."""
    for a, b in _pairs(dbs):
        walk = _route(a, b, "foot")[1]
        drive = _route(a, b, "car")[1]
        diff = format_minutes(walk - drive)
        yield port({"start": a["name"], "end": b["name"]}, M, [
            *directions_steps(str(a["name"]), str(b["name"]), "Foot"), stop(diff)],
            answers={"fuzzy_match": [diff]}, login=False)


def nearest_walk(dbs: Dbs) -> Iterator[Candidate]:
    """the nearest place of a category and the walking distance to it (string_match)."""
    places = place_rows(dbs["map"])
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


def walk_then_drive(dbs: Dbs) -> Iterator[Candidate]:
    """walking time A to B plus driving time B to C (string_match)."""
    places = place_rows(dbs["map"])
    for k in range(0, len(places) - 2, 4):
        a, b, c = places[k], places[k + 1], places[k + 2]
        total = format_minutes(_route(a, b, "foot")[1]
                               + route(b["lat"], b["lon"], c["lat"], c["lon"], "car")[1])
        yield port({"place_A": a["name"], "place_B": b["name"], "place_C": c["name"]}, M, [
            *directions_steps(a["name"], b["name"], "Foot"), stop(total)],
            answers={"fuzzy_match": [total]}, login=False)


def best_order(dbs: Dbs) -> Iterator[Candidate]:
    """the visiting order of places, from the first, that minimizes driving time (string)."""
    places = place_rows(dbs["map"])
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
    places = place_rows(dbs["map"])
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


def hotels_within(dbs: Dbs) -> Iterator[Candidate]:
    """hotels within n minutes' walk of a place, with their walking times (string_match)."""
    places = place_rows(dbs["map"])
    hotels = [h for h in places if h["category"] == "hotel"]
    for p in places[::4]:
        times = sorted((route(h["lat"], h["lon"], p["lat"], p["lon"], "foot")[1], h["name"])
                       for h in hotels if h["id"] != p["id"])
        for n in (30, 60, 120):
            near = [(t, name) for t, name in times if t <= n]
            if near and all(abs(t - n) > 2 for t, _ in times):
                yield port({"location": p["name"], "n": n}, M, [
                    type_("Search", p["name"], enter=True), click(p["name"], "link"),
                    click("Nearby places", "link"), click("Hotel", "link"),
                    stop(", ".join(f"{name} ({format_minutes(t)})" for t, name in near))],
                    answers={"must_include": [name for _t, name in near]}, login=False)


PORTS_MAP_ROUTES: dict[int, Port] = {
    41: hotels_within, 65: best_order, 78: hotel_nearby, 51: city_drive, 42: city_route,
    36: drive_time, 64: hotel_drive, 68: walk_time, 58: walk_distance, 73: walk_vs_drive,
    66: nearest_walk, 54: directions, 72: walk_then_drive,
}
"""Official template id -> port."""
