"""Real places on the bundled map: Pittsburgh, the airports around it, and national parks.

The map's generated world (:mod:`.data_map`: twelve invented cities, 300 places) has no real
place, so tasks that start "I am at Carnegie Mellon University" had nothing to stand on. This
module adds a small hand-written region, written for this project (names and street addresses
of well-known places, rounded coordinates), after the generated places: their ids start at
:data:`FIRST_REAL_PLACE` and their cities at :data:`FIRST_REAL_CITY`, so the generated world and
every task computed from it stay as they were. Addresses carry a ZIP code.

Travel times and distances on these places come from the same model as the rest of the map
(:func:`.data_map.route`): straight-line distance times a detour factor, at a fixed speed per
mode. They are the bundled map's figures, not those of real roads.
"""

from __future__ import annotations

import sqlite3

FIRST_REAL_CITY = 101
"""Id of the first real city (the generated ones are 1-12)."""
FIRST_REAL_PLACE = 1001
"""Id of the first real place (the generated ones are 1-300)."""
REAL_CATEGORIES = ("airport", "supermarket", "pharmacy", "post office", "police station",
                   "government office", "national park")
"""Categories only real places have (the generated ones are :data:`.data_map.CATEGORIES`)."""

REAL_CITIES = [("Pittsburgh", 40.4406, -79.9959), ("Philadelphia", 39.9526, -75.1652),
               ("West Mifflin", 40.3634, -79.8664), ("Latrobe", 40.3212, -79.3795),
               ("Moon Township", 40.5201, -80.2109), ("McKees Rocks", 40.4656, -80.0656),
               ("Bar Harbor", 44.3876, -68.2039), ("Luray", 38.6654, -78.4594),
               ("Brecksville", 41.3198, -81.6268), ("Glen Jean", 37.9301, -81.1548)]
"""``(name, lat, lon)``: ids from :data:`FIRST_REAL_CITY` in this order."""

_HOURS = "Mo-Fr 09:00-17:00"
REAL_PLACES = [
    # (name, category, street, city, state + ZIP, lat, lon, opening hours)
    ("Carnegie Mellon University", "university", "5000 Forbes Avenue", "Pittsburgh",
     "PA 15213", 40.4433, -79.9436, "24/7"),
    ("University of Pittsburgh", "university", "4200 Fifth Avenue", "Pittsburgh", "PA 15260",
     40.4444, -79.9608, "24/7"),
    ("Chatham University", "university", "1 Woodland Road", "Pittsburgh", "PA 15232",
     40.4478, -79.9245, "24/7"),
    ("Duquesne University", "university", "600 Forbes Avenue", "Pittsburgh", "PA 15282",
     40.4365, -79.9901, "24/7"),
    ("Pittsburgh International Airport", "airport", "1000 Airport Boulevard", "Pittsburgh",
     "PA 15231", 40.4915, -80.2329, "24/7"),
    ("Allegheny County Airport", "airport", "12 Allegheny County Airport", "West Mifflin",
     "PA 15122", 40.3544, -79.9302, "Mo-Su 06:00-22:00"),
    ("Arnold Palmer Regional Airport", "airport", "148 Aviation Lane", "Latrobe", "PA 15650",
     40.2747, -79.4048, "Mo-Su 05:00-23:00"),
    ("Philadelphia International Airport", "airport", "8000 Essington Avenue", "Philadelphia",
     "PA 19153", 39.8744, -75.2424, "24/7"),
    ("Hyatt Regency Pittsburgh International Airport", "hotel", "1111 Airport Boulevard",
     "Pittsburgh", "PA 15231", 40.4937, -80.2376, "24/7"),
    ("Hyatt House Pittsburgh Bloomfield Shadyside", "hotel", "5335 Baum Boulevard",
     "Pittsburgh", "PA 15224", 40.4573, -79.9400, "24/7"),
    ("Wyndham Pittsburgh University Center", "hotel", "100 Lytton Avenue", "Pittsburgh",
     "PA 15213", 40.4465, -79.9534, "24/7"),
    ("Hilton Garden Inn Pittsburgh University Place", "hotel", "3454 Forbes Avenue",
     "Pittsburgh", "PA 15213", 40.4371, -79.9621, "24/7"),
    ("Giant Eagle Robinson", "supermarket", "6100 Steubenville Pike", "McKees Rocks",
     "PA 15136", 40.4570, -80.1540, "Mo-Su 06:00-23:00"),
    ("ALDI Moon Township", "supermarket", "8800 University Boulevard", "Moon Township",
     "PA 15108", 40.5190, -80.2220, "Mo-Su 09:00-20:00"),
    ("Giant Eagle Squirrel Hill", "supermarket", "1717 Murray Avenue", "Pittsburgh",
     "PA 15217", 40.4380, -79.9220, "Mo-Su 06:00-23:00"),
    ("Trader Joe's East Liberty", "supermarket", "6343 Penn Avenue", "Pittsburgh", "PA 15206",
     40.4600, -79.9230, "Mo-Su 08:00-21:00"),
    ("Whole Foods Market Centre Avenue", "supermarket", "5880 Centre Avenue", "Pittsburgh",
     "PA 15206", 40.4590, -79.9300, "Mo-Su 07:00-22:00"),
    ("USPS Oakland Post Office", "post office", "4316 Forbes Avenue", "Pittsburgh", "PA 15213",
     40.4418, -79.9565, _HOURS),
    ("USPS Squirrel Hill Post Office", "post office", "1800 Murray Avenue", "Pittsburgh",
     "PA 15217", 40.4336, -79.9230, _HOURS),
    ("USPS Moon Township Post Office", "post office", "1000 Brodhead Road", "Moon Township",
     "PA 15108", 40.5230, -80.2040, _HOURS),
    ("Schiller's Pharmacy", "pharmacy", "811 South Aiken Avenue", "Pittsburgh", "PA 15232",
     40.4540, -79.9380, "Mo-Sa 09:00-19:00"),
    ("CVS Pharmacy Forbes Avenue", "pharmacy", "3600 Forbes Avenue", "Pittsburgh", "PA 15213",
     40.4405, -79.9585, "Mo-Su 08:00-22:00"),
    ("Rite Aid Murray Avenue", "pharmacy", "1830 Murray Avenue", "Pittsburgh", "PA 15217",
     40.4350, -79.9215, "Mo-Su 08:00-22:00"),
    ("Pittsburgh Police Zone 4 Station", "police station", "5858 Northumberland Street",
     "Pittsburgh", "PA 15217", 40.4385, -79.9190, "24/7"),
    ("USCIS Pittsburgh Field Office", "government office", "3000 Sidney Street", "Pittsburgh",
     "PA 15203", 40.4280, -79.9660, _HOURS),
    ("Social Security Administration Downtown", "government office", "1000 Liberty Avenue",
     "Pittsburgh", "PA 15222", 40.4440, -79.9950, _HOURS),
    ("Social Security Administration East Liberty", "government office", "6117 Station Street",
     "Pittsburgh", "PA 15206", 40.4620, -79.9250, _HOURS),
    ("Acadia National Park", "national park", "25 Visitor Center Road", "Bar Harbor",
     "ME 04609", 44.3386, -68.2733, "24/7"),
    ("Shenandoah National Park", "national park", "3655 US Highway 211 East", "Luray",
     "VA 22835", 38.4755, -78.4535, "24/7"),
    ("Cuyahoga Valley National Park", "national park", "15610 Vaughn Road", "Brecksville",
     "OH 44141", 41.2808, -81.5678, "24/7"),
    ("New River Gorge National Park", "national park", "104 Main Street", "Glen Jean",
     "WV 25846", 38.0659, -81.0754, "24/7"),
]
"""The real places, with ids from :data:`FIRST_REAL_PLACE` in this order."""


def add_real_places(conn: sqlite3.Connection) -> None:
    """Insert :data:`REAL_CITIES` and :data:`REAL_PLACES` into the map tables of ``conn``."""
    city_ids = {}
    for k, (name, lat, lon) in enumerate(REAL_CITIES):
        city_ids[name] = FIRST_REAL_CITY + k
        conn.execute("INSERT INTO cities VALUES (?,?,?,?)", (city_ids[name], name, lat, lon))
    for k, (name, cat, street, city, zone, lat, lon, hours) in enumerate(REAL_PLACES):
        conn.execute("INSERT INTO places VALUES (?,?,?,?,?,?,?,?)",
                     (FIRST_REAL_PLACE + k, name, cat, city_ids[city],
                      f"{street}, {city}, {zone}", lat, lon, hours))
