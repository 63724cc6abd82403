"""``flights``: airports, airlines, aircraft, scheduled flights, passengers and bookings."""

from __future__ import annotations

import math
import random
import sqlite3
from datetime import date, timedelta

from ..common import insert_rows, iso_date, maybe, person_name, random_date
from ..templates import t

DB_ID = "flights"

SCHEMA = """
CREATE TABLE airports (
    airport_code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL
);
CREATE TABLE airlines (
    airline_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    iata_code TEXT NOT NULL,
    country TEXT NOT NULL
);
CREATE TABLE aircraft (
    aircraft_id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    manufacturer TEXT NOT NULL,
    seats INTEGER NOT NULL,
    airline_id INTEGER NOT NULL REFERENCES airlines (airline_id),
    year_built INTEGER NOT NULL
);
CREATE TABLE flights (
    flight_id INTEGER PRIMARY KEY,
    flight_number TEXT NOT NULL,
    airline_id INTEGER NOT NULL REFERENCES airlines (airline_id),
    aircraft_id INTEGER NOT NULL REFERENCES aircraft (aircraft_id),
    origin TEXT NOT NULL REFERENCES airports (airport_code),
    destination TEXT NOT NULL REFERENCES airports (airport_code),
    departure_date TEXT NOT NULL,
    departure_time TEXT NOT NULL,
    status TEXT NOT NULL,
    delay_minutes INTEGER,
    distance_km INTEGER NOT NULL
);
CREATE TABLE passengers (
    passenger_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    nationality TEXT NOT NULL,
    birth_date TEXT NOT NULL,
    frequent_flyer_no TEXT
);
CREATE TABLE bookings (
    booking_id INTEGER PRIMARY KEY,
    flight_id INTEGER NOT NULL REFERENCES flights (flight_id),
    passenger_id INTEGER NOT NULL REFERENCES passengers (passenger_id),
    seat TEXT,
    fare_class TEXT NOT NULL,
    price REAL NOT NULL,
    booked_on TEXT NOT NULL
);
"""

_AIRPORTS = (  # code, name, city, country, latitude, longitude
    ("JFK", "John F. Kennedy International", "New York", "USA", 40.64, -73.78),
    ("LAX", "Los Angeles International", "Los Angeles", "USA", 33.94, -118.41),
    ("ORD", "O'Hare International", "Chicago", "USA", 41.98, -87.90),
    ("SEA", "Seattle-Tacoma International", "Seattle", "USA", 47.45, -122.31),
    ("ATL", "Hartsfield-Jackson Atlanta", "Atlanta", "USA", 33.64, -84.43),
    ("YYZ", "Toronto Pearson", "Toronto", "Canada", 43.68, -79.63),
    ("YVR", "Vancouver International", "Vancouver", "Canada", 49.19, -123.18),
    ("LHR", "Heathrow", "London", "UK", 51.47, -0.45),
    ("MAN", "Manchester Airport", "Manchester", "UK", 53.35, -2.27),
    ("CDG", "Charles de Gaulle", "Paris", "France", 49.01, 2.55),
    ("LYS", "Lyon-Saint Exupery", "Lyon", "France", 45.73, 5.08),
    ("FRA", "Frankfurt am Main", "Frankfurt", "Germany", 50.04, 8.56),
    ("MUC", "Munich Airport", "Munich", "Germany", 48.35, 11.79),
    ("MAD", "Adolfo Suarez Madrid-Barajas", "Madrid", "Spain", 40.49, -3.57),
    ("BCN", "Barcelona-El Prat", "Barcelona", "Spain", 41.30, 2.08),
    ("FCO", "Leonardo da Vinci-Fiumicino", "Rome", "Italy", 41.80, 12.25),
    ("AMS", "Amsterdam Schiphol", "Amsterdam", "Netherlands", 52.31, 4.76),
    ("DUB", "Dublin Airport", "Dublin", "Ireland", 53.43, -6.27),
    ("NRT", "Narita International", "Tokyo", "Japan", 35.77, 140.39),
    ("KIX", "Kansai International", "Osaka", "Japan", 34.43, 135.24),
    ("ICN", "Incheon International", "Seoul", "South Korea", 37.46, 126.44),
    ("SYD", "Sydney Kingsford Smith", "Sydney", "Australia", -33.94, 151.18),
    ("SIN", "Singapore Changi", "Singapore", "Singapore", 1.36, 103.99),
    ("DXB", "Dubai International", "Dubai", "United Arab Emirates", 25.25, 55.36),
    ("GRU", "Sao Paulo-Guarulhos", "Sao Paulo", "Brazil", -23.43, -46.47),
    ("CPT", "Cape Town International", "Cape Town", "South Africa", -33.97, 18.60),
)
_AIRLINES = (
    ("SkyBridge Airways", "SB", "USA", ("JFK", "ORD", "ATL")),
    ("Northwind Air", "NW", "Canada", ("YYZ", "YVR")),
    ("Atlantic Connect", "AC", "UK", ("LHR", "MAN")),
    ("Aurora Airlines", "AU", "Germany", ("FRA", "MUC")),
    ("Pacific Crest", "PC", "Japan", ("NRT", "KIX")),
    ("Solaris Air", "SO", "Spain", ("MAD", "BCN")),
    ("Meridian Express", "ME", "France", ("CDG", "LYS")),
    ("Southern Cross Air", "SX", "Australia", ("SYD",)),
)
_MODELS = (
    ("A320", "Airbus", 180), ("A321", "Airbus", 220), ("A330-300", "Airbus", 290),
    ("A350-900", "Airbus", 325), ("B737-800", "Boeing", 189), ("B737 MAX 8", "Boeing", 178),
    ("B787-9", "Boeing", 296), ("B777-300ER", "Boeing", 396), ("E190", "Embraer", 100),
    ("CRJ900", "Bombardier", 90),
)
_NATIONALITIES = ("USA", "Canada", "UK", "France", "Germany", "Spain", "Japan", "Australia",
                  "India", "Brazil", "Italy", "Netherlands")
_FARES = (("economy", 1.0, 70), ("premium", 1.6, 15), ("business", 3.2, 11), ("first", 6.0, 4))


def _distance(a: tuple, b: tuple) -> int:
    """Great-circle distance between two airports in kilometres."""
    lat1, lon1, lat2, lon2 = map(math.radians, (a[4], a[5], b[4], b[5]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(
        (lon2 - lon1) / 2
    ) ** 2
    return round(2 * 6371 * math.asin(math.sqrt(h)))


def _route_number(origin: str, dest: str) -> int:
    """A stable number for a route, so each route keeps one flight number per airline."""
    return sum((i + 1) * ord(c) for i, c in enumerate(origin + dest))


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    insert_rows(conn, "airports", [a[:4] for a in _AIRPORTS])
    insert_rows(conn, "airlines", [(i + 1, *a[:3]) for i, a in enumerate(_AIRLINES)])
    aircraft = []
    for aid in range(1, 43):
        model = rng.choice(_MODELS)
        aircraft.append((aid, model[0], model[1], model[2], (aid - 1) % 8 + 1,
                         rng.randint(1998, 2023)))
    insert_rows(conn, "aircraft", aircraft)
    by_code = {a[0]: a for a in _AIRPORTS}
    unused = {"CPT", "GRU"}  # served as destinations only
    flights = []
    for fid in range(1, 501):
        airline = rng.randint(1, 8)
        hubs = _AIRLINES[airline - 1][3]
        origin = rng.choice(hubs)
        dest = rng.choice([a[0] for a in _AIRPORTS if a[0] != origin])
        if rng.random() < 0.5 and dest not in unused:
            origin, dest = dest, origin
        fleet = [a for a in aircraft if a[4] == airline and a[0] % 7 != 0]  # some never fly
        status = rng.choices(["on time", "delayed", "cancelled"], weights=[74, 21, 5])[0]
        delay = {"on time": 0, "delayed": rng.choice([5, 10, 15, 20, 30, 45, 60, 90, 120, 240]),
                 "cancelled": None}[status]
        day = date(2024, 1, 1) + timedelta(days=rng.randint(0, 181))
        flights.append(
            (fid, f"{_AIRLINES[airline - 1][1]}{100 + (_route_number(origin, dest) % 800)}",
             airline, rng.choice(fleet)[0], origin, dest, iso_date(day),
             f"{rng.randint(5, 22):02d}:{rng.choice(['00', '15', '30', '45'])}", status, delay,
             _distance(by_code[origin], by_code[dest]))
        )
    insert_rows(conn, "flights", flights)
    passengers = []
    for pid in range(1, 401):
        first, last = person_name(rng)
        ff = maybe(rng, f"FF{rng.randint(100000, 999999)}", 0.55)
        passengers.append((pid, first, last, rng.choice(_NATIONALITIES),
                           iso_date(random_date(rng, date(1945, 1, 1), date(2008, 12, 31))), ff))
    insert_rows(conn, "passengers", passengers)
    bookings = []
    for bid in range(1, 2201):
        flight = flights[rng.randrange(500)]
        fare, factor, _ = rng.choices(_FARES, weights=[f[2] for f in _FARES])[0]
        price = round((60 + flight[10] * 0.09) * factor * rng.uniform(0.8, 1.3), 2)
        seat = maybe(rng, f"{rng.randint(1, 45)}{rng.choice('ABCDEF')}", 0.15)
        booked = date.fromisoformat(flight[6]) - timedelta(days=rng.randint(1, 120))
        bookings.append((bid, flight[0], rng.randint(1, 400), seat, fare, price, iso_date(booked)))
    insert_rows(conn, "bookings", bookings)


TEMPLATES = [
    t("easy", "How many flights depart from the airport with code {code}?",
      "SELECT COUNT(*) FROM flights WHERE origin = {code}", code="SELECT origin FROM flights"),
    t("easy", "How many flights were cancelled?",
      "SELECT COUNT(*) FROM flights WHERE status = 'cancelled'"),
    t("easy", "List the flight numbers and departure dates of the flights delayed by more than "
      "{m} minutes.",
      "SELECT flight_number, departure_date FROM flights WHERE delay_minutes > {m}", count=2,
      m="SELECT 60 UNION SELECT 90 UNION SELECT 120"),
    t("easy", "What is the average delay in minutes of the delayed flights, rounded to 2 "
      "decimals?",
      "SELECT ROUND(AVG(delay_minutes), 2) FROM flights WHERE status = 'delayed'"),
    t("easy", "Which airports are in {country}? Give their codes and names.",
      "SELECT airport_code, name FROM airports WHERE country = {country}", count=2,
      country="SELECT country FROM airports GROUP BY country HAVING COUNT(*) > 1"),
    t("easy", "How many passengers have no frequent flyer number?",
      "SELECT COUNT(*) FROM passengers WHERE frequent_flyer_no IS NULL"),
    t("easy", "What is the longest flight distance in kilometres?",
      "SELECT MAX(distance_km) FROM flights"),
    t("easy", "List the distinct aircraft models with more than {n} seats.",
      "SELECT DISTINCT model FROM aircraft WHERE seats > {n}", count=2,
      n="SELECT 200 UNION SELECT 250 UNION SELECT 300"),
    t("easy", "How many bookings were made in the '{fare}' fare class?",
      "SELECT COUNT(*) FROM bookings WHERE fare_class = {fare}", count=2,
      fare="SELECT fare_class FROM bookings"),
    t("easy", "Give the first and last names of the passengers born before {day}.",
      "SELECT first_name, last_name FROM passengers WHERE birth_date < {day}", count=2,
      day="SELECT '1950-01-01' UNION SELECT '1955-01-01' UNION SELECT '1960-01-01'"),
    t("easy", "How many flights depart on {day}?",
      "SELECT COUNT(*) FROM flights WHERE departure_date = {day}", count=2,
      day="SELECT departure_date FROM flights"),
    t("easy", "For each fare class, what is the average booking price, rounded to 2 decimals?",
      "SELECT fare_class, ROUND(AVG(price), 2) FROM bookings GROUP BY fare_class"),
    t("easy", "How many distinct nationalities do the passengers have?",
      "SELECT COUNT(DISTINCT nationality) FROM passengers"),
    t("medium", "How many flights does the airline {airline} operate?",
      "SELECT COUNT(*) FROM flights f JOIN airlines a ON a.airline_id = f.airline_id "
      "WHERE a.name = {airline}", count=2, airline="SELECT name FROM airlines"),
    t("medium", "For each airline with cancelled flights, give its name and how many of its "
      "flights were cancelled.",
      "SELECT a.name, COUNT(*) FROM airlines a JOIN flights f ON f.airline_id = a.airline_id "
      "WHERE f.status = 'cancelled' GROUP BY a.airline_id, a.name"),
    t("medium", "Give the distinct first and last names of the passengers who booked a flight "
      "to {city}.",
      "SELECT DISTINCT p.first_name, p.last_name FROM passengers p JOIN bookings b "
      "ON b.passenger_id = p.passenger_id JOIN flights f ON f.flight_id = b.flight_id "
      "JOIN airports a ON a.airport_code = f.destination WHERE a.city = {city}", count=2,
      city="SELECT a.city FROM airports a JOIN flights f ON f.destination = a.airport_code"),
    t("medium", "What is the total revenue of bookings on flights operated by {airline}, "
      "rounded to 2 decimals?",
      "SELECT ROUND(SUM(b.price), 2) FROM bookings b JOIN flights f ON f.flight_id = b.flight_id "
      "JOIN airlines a ON a.airline_id = f.airline_id WHERE a.name = {airline}", count=2,
      airline="SELECT name FROM airlines"),
    t("medium", "For each destination city, what is the average price of economy bookings, "
      "rounded to 2 decimals?",
      "SELECT a.city, ROUND(AVG(b.price), 2) FROM bookings b JOIN flights f "
      "ON f.flight_id = b.flight_id JOIN airports a ON a.airport_code = f.destination "
      "WHERE b.fare_class = 'economy' GROUP BY a.city"),
    t("medium", "Which aircraft models were used on more than {n} flights? Give the model and "
      "the number of flights.",
      "SELECT ac.model, COUNT(*) FROM aircraft ac JOIN flights f ON f.aircraft_id = ac.aircraft_id "
      "GROUP BY ac.model HAVING COUNT(*) > {n}", count=2,
      n="SELECT 40 UNION SELECT 50 UNION SELECT 60"),
    t("medium", "List the flight numbers and departure dates of the flights leaving from "
      "{city}.",
      "SELECT f.flight_number, f.departure_date FROM flights f JOIN airports a "
      "ON a.airport_code = f.origin WHERE a.city = {city}", count=2,
      city="SELECT a.city FROM airports a JOIN flights f ON f.origin = a.airport_code"),
    t("medium", "Which passengers have more than {n} bookings? Give first name, last name and "
      "the number of bookings.",
      "SELECT p.first_name, p.last_name, COUNT(*) FROM passengers p JOIN bookings b "
      "ON b.passenger_id = p.passenger_id GROUP BY p.passenger_id, p.first_name, p.last_name "
      "HAVING COUNT(*) > {n}", count=2, n="SELECT 9 UNION SELECT 10 UNION SELECT 11"),
    t("medium", "What percentage of the flights of {airline} were delayed? Round to 1 decimal.",
      "SELECT ROUND(100.0 * SUM(CASE WHEN f.status = 'delayed' THEN 1 ELSE 0 END) / COUNT(*), 1) "
      "FROM flights f JOIN airlines a ON a.airline_id = f.airline_id WHERE a.name = {airline}",
      count=2, airline="SELECT name FROM airlines"),
    t("medium", "For each origin airport code, how many distinct destinations does it have?",
      "SELECT origin, COUNT(DISTINCT destination) FROM flights GROUP BY origin"),
    t("hard", "Which airports have no departing flights? Give their codes.",
      "SELECT airport_code FROM airports EXCEPT SELECT origin FROM flights"),
    t("hard", "Give the ids of the passengers who have booked both a business class seat and "
      "an economy seat.",
      "SELECT passenger_id FROM bookings WHERE fare_class = 'business' INTERSECT "
      "SELECT passenger_id FROM bookings WHERE fare_class = 'economy'"),
    t("hard", "For each airline, which route does it fly most often? Give the airline name, "
      "origin code, destination code and number of flights (include ties).",
      "SELECT name, origin, destination, n FROM (SELECT a.name, f.origin, f.destination, "
      "COUNT(*) AS n, RANK() OVER (PARTITION BY a.airline_id ORDER BY COUNT(*) DESC) AS rk "
      "FROM airlines a JOIN flights f ON f.airline_id = a.airline_id "
      "GROUP BY a.airline_id, a.name, f.origin, f.destination) ranked WHERE rk = 1"),
    t("hard", "For each month of 2024 (YYYY-MM), give the number of flights and the running "
      "total of flights since January, ordered by month.",
      "WITH monthly AS (SELECT substr(departure_date, 1, 7) AS month, COUNT(*) AS n "
      "FROM flights GROUP BY substr(departure_date, 1, 7)) SELECT month, n, "
      "SUM(n) OVER (ORDER BY month) FROM monthly ORDER BY month"),
    t("hard", "List the flight numbers and dates of the flights whose delay is greater than "
      "the average delay of their airline's flights.",
      "SELECT f.flight_number, f.departure_date FROM flights f WHERE f.delay_minutes > "
      "(SELECT AVG(f2.delay_minutes) FROM flights f2 WHERE f2.airline_id = f.airline_id)"),
    t("hard", "How many bookings cost more than the average price of their own fare class?",
      "SELECT COUNT(*) FROM bookings b WHERE b.price > "
      "(SELECT AVG(b2.price) FROM bookings b2 WHERE b2.fare_class = b.fare_class)"),
    t("hard", "For the flight with id {fid}, rank its bookings by price, highest first: give "
      "each passenger's first and last name, the price and the rank (equal prices share a "
      "rank).",
      "SELECT p.first_name, p.last_name, b.price, RANK() OVER (ORDER BY b.price DESC) "
      "FROM bookings b JOIN passengers p ON p.passenger_id = b.passenger_id "
      "WHERE b.flight_id = {fid}", count=2,
      fid="SELECT flight_id FROM bookings GROUP BY flight_id HAVING COUNT(*) >= 6"),
    t("hard", "Which airports can be reached from {code} with exactly one connection (a flight "
      "from {code} to some airport, then a flight from there) but not by a direct flight? "
      "Exclude {code} itself; give the airport codes.",
      "SELECT f2.destination FROM flights f1 JOIN flights f2 ON f2.origin = f1.destination "
      "WHERE f1.origin = {code} AND f2.destination <> {code} EXCEPT "
      "SELECT destination FROM flights WHERE origin = {code}", count=2,
      code="SELECT origin FROM flights WHERE origin IN ('DUB', 'AMS', 'SIN', 'ICN', 'DXB')"),
    t("hard", "Which aircraft have never been used for a flight? Give their ids and models.",
      "SELECT aircraft_id, model FROM aircraft ac WHERE NOT EXISTS "
      "(SELECT 1 FROM flights f WHERE f.aircraft_id = ac.aircraft_id)"),
    t("hard", "What is the second longest distance flown by any flight, in kilometres?",
      "SELECT MAX(distance_km) FROM flights WHERE distance_km < "
      "(SELECT MAX(distance_km) FROM flights)"),
]
