"""The twin's own task templates of the map: driving times, cycling distances, the closest
place of a kind, opening hours, walking routes and place pages.

The row and step helpers (:func:`place_rows`, :func:`directions_steps`) are public:
:mod:`.twin_ports` reuse them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from .sites.data_map import format_minutes, haversine_km, route
from .sites.data_places import FIRST_REAL_PLACE
from .taskgen import (
    Candidate,
    Template,
    click,
    query,
    record,
    select,
    stop,
    type_,
)

M = "__MAP__"
Dbs = dict[str, sqlite3.Connection]


def place_rows(db: sqlite3.Connection) -> list[Any]:
    """The generated world's places (the real ones of :mod:`.sites.data_places` aside)."""
    return db.execute("SELECT p.*, c.name AS city FROM places p JOIN cities c ON c.id = "
                      "p.city_id WHERE p.id < ? ORDER BY p.id", (FIRST_REAL_PLACE,)).fetchall()


def place_pairs(db: sqlite3.Connection) -> Iterator[tuple[Any, Any]]:
    """The generated places two by two (first and second, third and fourth, ...)."""
    places = place_rows(db)
    for k in range(0, len(places) - 1, 2):
        yield places[k], places[k + 1]


def directions_steps(a: str, b: str, mode: str | None = None) -> list[dict[str, Any]]:
    """The expert steps that ask the map for directions from ``a`` to ``b`` (by ``mode``)."""
    steps = [click("Directions", "link"), type_("From", a), type_("To", b)]
    if mode:
        steps.append(select("Mode", mode))
    return [*steps, click("Go", "button")]


def drive_time(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Driving time between two places."""
    for a, b in place_pairs(dbs["map"]):
        minutes = format_minutes(route(a["lat"], a["lon"], b["lat"], b["lon"], "car")[1])
        yield record(t, {"a": a["name"], "b": b["name"]}, M, [
            *directions_steps(a["name"], b["name"]), stop(minutes)],
            answers={"fuzzy_match": [minutes]}, login=False)


def bike_distance(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Cycling distance between two places."""
    for b, a in place_pairs(dbs["map"]):
        km = route(a["lat"], a["lon"], b["lat"], b["lon"], "bike")[0]
        yield record(t, {"a": a["name"], "b": b["name"]}, M, [
            *directions_steps(a["name"], b["name"], "Bicycle"), stop(f"{km} km")],
            answers={"must_include": [f"{km} km"]}, login=False)


def closest(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Nearest place of a category to a place."""
    places = place_rows(dbs["map"])
    for p in places:
        for cat in ("cafe", "park", "hotel", "museum"):
            others = sorted((haversine_km(p["lat"], p["lon"], o["lat"], o["lon"]), o["name"])
                            for o in places if o["category"] == cat and o["id"] != p["id"])
            if len(others) < 2 or others[1][0] - others[0][0] < 0.2:
                continue
            yield record(t, {"category": cat, "place": p["name"]}, M, [
                type_("Search", p["name"], enter=True), click(p["name"], "link"),
                click("Nearby places", "link"), click(cat.title(), "link"), stop(others[0][1])],
                answers={"fuzzy_match": [others[0][1]]}, login=False)


def hours(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Opening hours of a place."""
    for p in place_rows(dbs["map"]):
        yield record(t, {"place": p["name"]}, M, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"),
            stop(p["opening_hours"])], answers={"must_include": [p["opening_hours"]]},
            login=False)


def walk_route(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Show the walking route between two places."""
    for a, b in list(place_pairs(dbs["map"]))[::-1]:
        yield record(t, {"a": a["name"], "b": b["name"]}, M, [
            *directions_steps(a["name"], b["name"], "Foot"), stop()],
            url=query(f"{M}/directions", **{"from": a["name"], "to": b["name"], "mode": "foot"}),
            login=False)


def place_page(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Open a place's page."""
    for p in place_rows(dbs["map"])[::-1]:
        yield record(t, {"place": p["name"]}, M, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"), stop()],
            url=f"{M}/place/{p['id']}", login=False)


MAP_TEMPLATES = [
    Template(401, ("map",), "How long does it take to drive from {a} to {b}?", 6, drive_time),
    Template(402, ("map",), "What is the distance by bicycle from {a} to {b}?", 5,
             bike_distance),
    Template(403, ("map",), "What is the closest {category} to {place}?", 5, closest),
    Template(404, ("map",), "What are the opening hours of {place}?", 3, hours),
    Template(405, ("map",), "Show me the walking route from {a} to {b}.", 4, walk_route),
    Template(406, ("map",), "Show me the map page of {place}.", 3, place_page),
]
"""Map templates (26 test tasks)."""
