"""Shared material for the database generators: name lists, seeded draws and table writing.

Everything here is deterministic given the ``random.Random`` passed in; nothing reads the
clock or the network.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any, TypeVar

__all__ = [
    "CITIES",
    "FIRST_NAMES",
    "LAST_NAMES",
    "REFERENCE_DATE",
    "STREETS",
    "email_for",
    "insert_rows",
    "iso_date",
    "maybe",
    "person_name",
    "phone",
    "random_date",
    "skewed_choice",
    "zipf_weights",
]

T = TypeVar("T")

REFERENCE_DATE = date(2024, 6, 30)
"""The generated world's "today": every date is on or before it."""

FIRST_NAMES = (
    "James Mary John Patricia Robert Jennifer Michael Linda David Elizabeth William Barbara "
    "Richard Susan Joseph Jessica Thomas Sarah Charles Karen Daniel Lisa Matthew Nancy Anthony "
    "Betty Mark Sandra Paul Ashley Steven Emily Andrew Donna Kevin Michelle Brian Carol George "
    "Amanda Timothy Melissa Ronald Deborah Jason Stephanie Edward Rebecca Jeffrey Laura Ryan "
    "Sharon Jacob Cynthia Gary Kathleen Nicholas Amy Eric Angela Jonathan Helen Larry Anna "
    "Justin Brenda Scott Pamela Brandon Nicole Benjamin Emma Samuel Samantha Gregory Katherine "
    "Alexander Christine Patrick Debra Frank Rachel Raymond Carolyn Jack Janet Dennis Maria "
    "Jerry Olivia Tyler Heather Aaron Diane Jose Julie Adam Joyce Nathan Victoria Henry Ruth "
    "Zachary Virginia Douglas Lauren Peter Kelly Kyle Christina Noah Joan Ethan Evelyn Jeremy "
    "Judith Walter Andrea Christian Hannah Keith Megan Roger Cheryl Terry Jacqueline Austin "
    "Martha Sean Madison Gerald Teresa Carl Gloria Harold Sara Dylan Janice Arthur Ann Lawrence "
    "Kathryn Jordan Abigail Jesse Sophia Bryan Frances Billy Jean Bruce Alice Gabriel Judy Joe "
    "Isabella Logan Julia Alan Grace Juan Amber Albert Denise Willie Danielle Elijah Marilyn "
    "Wayne Beverly Randy Charlotte Vincent Natalie Mason Theresa Roy Diana Ralph Brittany Bobby "
    "Doris Russell Kayla Bradley Alexis Philip Lori Eugene Marie Aiko Mateo Priya Wei Fatima "
    "Lucas Chloe Omar Ines Hugo Leila Ivan Yuki Carlos Amara Rafael Mei Tomas Zara Luca Nadia"
).split()

LAST_NAMES = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez "
    "Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White "
    "Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres "
    "Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts "
    "Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales "
    "Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos "
    "Kim Cox Ward Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes "
    "Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins Perry "
    "Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons "
    "Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West "
    "Cole Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro "
    "Marshall Owens Harrison Fernandez McDonald Woods Washington Kennedy Wells Vargas Henry "
    "Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez "
    "Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd "
    "Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols "
    "Tanaka Novak Okafor Rossi Dubois Muller Kowalski Larsen Silva Yamamoto Ivanova Haddad"
).split()

CITIES = (
    ("New York", "USA"), ("Los Angeles", "USA"), ("Chicago", "USA"), ("Houston", "USA"),
    ("Seattle", "USA"), ("Boston", "USA"), ("Denver", "USA"), ("Atlanta", "USA"),
    ("Toronto", "Canada"), ("Vancouver", "Canada"), ("Montreal", "Canada"),
    ("London", "UK"), ("Manchester", "UK"), ("Edinburgh", "UK"),
    ("Paris", "France"), ("Lyon", "France"), ("Marseille", "France"),
    ("Berlin", "Germany"), ("Munich", "Germany"), ("Hamburg", "Germany"),
    ("Madrid", "Spain"), ("Barcelona", "Spain"), ("Rome", "Italy"), ("Milan", "Italy"),
    ("Amsterdam", "Netherlands"), ("Dublin", "Ireland"), ("Lisbon", "Portugal"),
    ("Stockholm", "Sweden"), ("Oslo", "Norway"), ("Warsaw", "Poland"),
    ("Tokyo", "Japan"), ("Osaka", "Japan"), ("Seoul", "South Korea"), ("Sydney", "Australia"),
    ("Melbourne", "Australia"), ("Mexico City", "Mexico"), ("Sao Paulo", "Brazil"),
    ("Mumbai", "India"), ("Singapore", "Singapore"), ("Cape Town", "South Africa"),
)
"""``(city, country)`` pairs; earlier cities are drawn more often by :func:`skewed_choice`."""

STREETS = (
    "Main St", "Oak Ave", "Maple Rd", "Cedar Ln", "Pine St", "Elm St", "Lake Dr", "Hill Rd",
    "Park Ave", "River Rd", "Church St", "Mill Ln", "High St", "Station Rd", "Bridge St",
)


def zipf_weights(n: int, s: float = 1.0) -> list[float]:
    """Weights ``1/k**s`` for ranks 1..n: a few items common, a long tail rare."""
    return [1.0 / (k**s) for k in range(1, n + 1)]


def skewed_choice(rng: random.Random, items: Sequence[T], s: float = 0.8) -> T:
    """Pick from ``items`` with Zipf weights, so the first items repeat often."""
    return rng.choices(items, weights=zipf_weights(len(items), s))[0]


def maybe(rng: random.Random, value: T, p_null: float) -> T | None:
    """``value``, or None with probability ``p_null``."""
    return None if rng.random() < p_null else value


def iso_date(day: date) -> str:
    """``YYYY-MM-DD`` text, the only date format in the databases."""
    return day.isoformat()


def random_date(rng: random.Random, start: date, end: date = REFERENCE_DATE) -> date:
    """A uniform day between ``start`` and ``end`` inclusive."""
    return start + timedelta(days=rng.randint(0, (end - start).days))


def person_name(rng: random.Random) -> tuple[str, str]:
    """A ``(first, last)`` pair with skewed frequencies, so that names repeat."""
    return skewed_choice(rng, FIRST_NAMES, 0.5), skewed_choice(rng, LAST_NAMES, 0.6)


def email_for(first: str, last: str, number: int, domain: str = "example.com") -> str:
    """A unique-looking e-mail address for a person."""
    return f"{first.lower()}.{last.lower()}{number}@{domain}"


def phone(rng: random.Random) -> str:
    """A fake phone number in ``555-XXX-XXXX`` form."""
    return f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"


def insert_rows(conn: sqlite3.Connection, table: str, rows: Iterable[Sequence[Any]]) -> int:
    """Insert ``rows`` into ``table`` (all columns, in order); return how many."""
    rows = list(rows)
    if not rows:
        return 0
    marks = ", ".join("?" * len(rows[0]))
    conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    return len(rows)
