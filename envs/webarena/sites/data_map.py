"""Deterministic content of the map (``__MAP__``) and the wiki (``__WIKIPEDIA__``).

The two share one made-up world: cities with coordinates, and places (museums, cafes, parks...)
inside them. The wiki has an article per city and per notable place, so multi-site tasks can ask
about the city a map place lies in.
"""

from __future__ import annotations

import math
import random
import sqlite3

from .data_places import FIRST_REAL_PLACE, add_real_places

MAP_SCHEMA = """
CREATE TABLE cities (id INTEGER PRIMARY KEY, name TEXT UNIQUE, lat REAL, lon REAL);
CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT UNIQUE, category TEXT, city_id INTEGER,
  address TEXT, lat REAL, lon REAL, opening_hours TEXT);
"""
WIKI_SCHEMA = """
CREATE TABLE articles (id INTEGER PRIMARY KEY, title TEXT UNIQUE, summary TEXT, body TEXT,
  infobox TEXT);
"""

CITIES = [("Port Avalon", 41.20, -73.90), ("Brightwater", 41.45, -73.55),
          ("Elmsford Bay", 40.95, -74.20), ("Northgate", 41.80, -73.70),
          ("Cedar Falls", 41.05, -73.35), ("Ironbridge", 40.80, -73.80),
          ("Lakemont", 41.60, -74.10), ("Silverton", 41.30, -74.40),
          ("Kingsreach", 40.70, -74.50), ("Oakhaven", 41.95, -74.30),
          ("Redcliff", 41.10, -72.95), ("Westmere", 40.60, -73.40)]
CATEGORIES = {
    "museum": ["Museum of {a}", "{c} {a} Museum"], "cafe": ["{a} Cafe", "Cafe {a}"],
    "restaurant": ["{a} Bistro", "The {a} Kitchen"], "park": ["{a} Park", "{a} Gardens"],
    "hotel": ["Hotel {a}", "{a} Inn"], "library": ["{c} {a} Library"],
    "university": ["University of {c} {a}", "{a} Institute of Technology"],
    "hospital": ["{a} General Hospital"], "station": ["{c} {a} Station"],
}
WORDS = ["Amber", "Beacon", "Cobalt", "Driftwood", "Evergreen", "Foxglove", "Granite",
         "Heron", "Ivory", "Juniper", "Kestrel", "Lantern", "Marigold", "Nimbus", "Orchard",
         "Pinecrest", "Quarry", "Riverside", "Saffron", "Thistle", "Umber", "Valley", "Wren",
         "Yarrow", "Zephyr", "Harbor", "Summit", "Meadow", "Aurora", "Bramble"]
STREETS = ["Main St", "Oak Ave", "Harbor Rd", "Mill Lane", "Station Sq", "Elm St",
           "Park Blvd", "Church St", "River Rd", "Hill Ct"]
HOURS = ["Mo-Fr 09:00-17:00", "Mo-Su 07:00-22:00", "Tu-Su 10:00-18:00", "24/7",
         "Mo-Sa 08:00-20:00"]
SPEED_KMH = {"car": 50.0, "bike": 15.0, "foot": 5.0}
"""Average speed of each travel mode."""
DETOUR = {"car": 1.3, "bike": 1.2, "foot": 1.1}
"""Road distance divided by straight-line distance, per mode."""


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in kilometres."""
    r = 6371.0
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))


def route(lat1: float, lon1: float, lat2: float, lon2: float, mode: str) -> tuple[float, int]:
    """Road distance in km (one decimal) and travel time in whole minutes for ``mode``."""
    km = round(haversine_km(lat1, lon1, lat2, lon2) * DETOUR[mode], 1)
    return km, max(1, round(km / SPEED_KMH[mode] * 60))


def format_minutes(minutes: int) -> str:
    """``95`` -> ``1 h 35 min``; ``40`` -> ``40 min``."""
    h, m = divmod(minutes, 60)
    return f"{h} h {m} min" if h else f"{m} min"


def build_map(conn: sqlite3.Connection, seed: int = 17) -> None:
    """Create and fill the map tables in ``conn``."""
    rng = random.Random(seed)
    conn.executescript(MAP_SCHEMA)
    for cid, (name, lat, lon) in enumerate(CITIES, 1):
        conn.execute("INSERT INTO cities VALUES (?,?,?,?)", (cid, name, lat, lon))
    names: set[str] = set()
    pid = 0
    while pid < 300:
        cat = rng.choice(list(CATEGORIES))
        cid = rng.randint(1, len(CITIES))
        city, lat, lon = CITIES[cid - 1]
        name = rng.choice(CATEGORIES[cat]).format(a=rng.choice(WORDS), c=city.split()[0])
        if name in names:
            continue
        names.add(name)
        pid += 1
        conn.execute("INSERT INTO places VALUES (?,?,?,?,?,?,?,?)",
                     (pid, name, cat, cid, f"{rng.randint(1, 400)} {rng.choice(STREETS)}, {city}",
                      round(lat + rng.uniform(-0.08, 0.08), 5),
                      round(lon + rng.uniform(-0.08, 0.08), 5), rng.choice(HOURS)))
    add_real_places(conn)


def build_wiki(conn: sqlite3.Connection, seed: int = 19) -> None:
    """Create and fill the wiki's articles (cities and notable places of the map's world)."""
    rng = random.Random(seed)
    conn.executescript(WIKI_SCHEMA)
    mconn = sqlite3.connect(":memory:")
    build_map(mconn)
    aid = 0
    for name, lat, lon in CITIES:
        aid += 1
        pop = rng.randint(12, 900) * 1000 + rng.randint(0, 999)
        founded = rng.randint(1620, 1890)
        mayor = f"{rng.choice(['Ana', 'Bo', 'Cy', 'Di', 'Ed', 'Flo'])} {rng.choice(WORDS)}"
        area = round(rng.uniform(20, 400), 1)
        info = {"Population": f"{pop:,}", "Founded": str(founded), "Mayor": mayor,
                "Area": f"{area} km2", "Coordinates": f"{lat:.2f}, {lon:.2f}"}
        summary = (f"{name} is a city founded in {founded} with a population of {pop:,}. "
                   f"Its mayor is {mayor}.")
        body = (f"{name} grew around its harbor and railway. The city covers {area} km2. "
                "It is known for its museums, parks and universities.")
        conn.execute("INSERT INTO articles VALUES (?,?,?,?,?)",
                     (aid, name, summary, body, _infobox(info)))
    notable = mconn.execute(
        "SELECT p.name, p.category, c.name FROM places p JOIN cities c ON c.id = p.city_id "
        "WHERE p.category IN ('museum', 'university', 'library') AND p.id < ? ORDER BY p.id",
        (FIRST_REAL_PLACE,)).fetchall()
    for pname, cat, city in notable:
        aid += 1
        founded = rng.randint(1800, 2010)
        info = {"Type": cat.title(), "Location": city, "Established": str(founded)}
        summary = f"{pname} is a {cat} in {city}, established in {founded}."
        body = f"The {cat} is one of the landmarks of {city}."
        conn.execute("INSERT INTO articles VALUES (?,?,?,?,?)",
                     (aid, pname, summary, body, _infobox(info)))


def _infobox(info: dict[str, str]) -> str:
    return "\n".join(f"{k}={v}" for k, v in info.items())
