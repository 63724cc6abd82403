"""The shop's marketing content: the storefront's search terms (what shoppers searched for, and
how often), the storefront themes the admin panel lists, and each customer's newsletter
subscription (none to start with).

Filled after :func:`.data_shop.build_shop`'s tables, so the older content (and every task
computed from it) is unchanged. The figures are fixed here, written for this project.
"""

from __future__ import annotations

import sqlite3

MARKETING_SCHEMA = """
CREATE TABLE search_terms (id INTEGER PRIMARY KEY, query TEXT UNIQUE, results INTEGER,
  hits INTEGER);
CREATE TABLE themes (id INTEGER PRIMARY KEY, title TEXT UNIQUE, path TEXT, parent TEXT);
ALTER TABLE customers ADD COLUMN newsletter TEXT NOT NULL DEFAULT 'no';
"""
SEARCH_TERMS = [("nordic kettle", 4, 214), ("headphones", 9, 187), ("nordic yoga mat", 3, 166),
                ("acme blender", 2, 141), ("nordic", 12, 129), ("green tea", 5, 97),
                ("zenith toaster", 1, 88), ("dog leash", 4, 73), ("acme", 11, 61),
                ("tent", 6, 54), ("lumen desk lamp", 2, 42), ("board game", 5, 35),
                ("harbor backpack", 3, 27), ("sunscreen", 4, 19), ("puzzle", 7, 12)]
"""``(query, results, hits)``: how often shoppers searched each term, most first."""
THEMES = [(1, "Magento Blank", "Magento/blank", ""), (2, "Magento Luma", "Magento/luma",
                                                       "Magento Blank"),
          (3, "Harbor Light", "Harbor/light", "Magento Luma"),
          (4, "Night Market", "Night/market", "Magento Blank"),
          (5, "Orchard Classic", "Orchard/classic", "Magento Luma")]
"""``(id, title, path, parent theme)``."""


def build_shop_marketing(conn: sqlite3.Connection) -> None:
    """Add the search terms and themes to ``conn``."""
    conn.executescript(MARKETING_SCHEMA)
    conn.executemany("INSERT INTO search_terms (query, results, hits) VALUES (?,?,?)",
                     SEARCH_TERMS)
    conn.executemany("INSERT INTO themes VALUES (?,?,?,?)", THEMES)
