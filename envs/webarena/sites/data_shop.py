"""Deterministic content of the shop: catalogue, reviews, customers and orders.

The storefront (``__SHOPPING__``) and the admin panel (``__SHOPPING_ADMIN__``) are two apps over
two copies of this one database, so an admin task and a storefront task see the same store.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta

from .data_map import CITIES
from .data_shop_marketing import build_shop_marketing

SCHEMA = """
CREATE TABLE categories (id INTEGER PRIMARY KEY, slug TEXT UNIQUE, name TEXT);
CREATE TABLE products (
  id INTEGER PRIMARY KEY, sku TEXT UNIQUE, name TEXT, category_id INTEGER, brand TEXT,
  color TEXT, price REAL, stock INTEGER, status TEXT, description TEXT);
CREATE TABLE customers (
  id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, email TEXT UNIQUE, city TEXT,
  state TEXT, phone TEXT, group_name TEXT);
CREATE TABLE reviews (
  id INTEGER PRIMARY KEY, product_id INTEGER, nickname TEXT, rating INTEGER, title TEXT,
  body TEXT, created TEXT);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY, number TEXT UNIQUE, customer_id INTEGER, status TEXT, created TEXT,
  total REAL);
CREATE TABLE order_items (
  id INTEGER PRIMARY KEY, order_id INTEGER, product_id INTEGER, qty INTEGER, price REAL);
CREATE TABLE cart_items (
  id INTEGER PRIMARY KEY, customer_id INTEGER, product_id INTEGER, qty INTEGER);
CREATE TABLE wishlist (id INTEGER PRIMARY KEY, customer_id INTEGER, product_id INTEGER);
CREATE TABLE users (username TEXT PRIMARY KEY, password TEXT, customer_id INTEGER);
"""

CATEGORIES = {
    "electronics": ("Electronics", ["Headphones", "Charger", "Speaker", "Webcam", "Keyboard",
                                    "Mouse", "Monitor Stand", "USB Hub"]),
    "home-kitchen": ("Home & Kitchen", ["Kettle", "Blender", "Frying Pan", "Knife Set",
                                        "Coffee Grinder", "Toaster", "Cutting Board"]),
    "beauty": ("Beauty", ["Face Cream", "Shampoo", "Lip Balm", "Hair Dryer", "Nail Kit",
                          "Sunscreen"]),
    "sports": ("Sports & Outdoors", ["Yoga Mat", "Water Bottle", "Tent", "Backpack",
                                     "Running Shoes", "Dumbbell Set"]),
    "toys": ("Toys & Games", ["Puzzle", "Board Game", "Building Blocks", "Plush Bear",
                              "Kite", "Toy Car"]),
    "office": ("Office Products", ["Notebook", "Desk Lamp", "Stapler", "Pen Set", "Planner",
                                   "Paper Shredder"]),
    "garden": ("Patio & Garden", ["Garden Hose", "Planter", "Pruning Shears", "Bird Feeder",
                                  "Lawn Sprinkler"]),
    "pet": ("Pet Supplies", ["Dog Leash", "Cat Tree", "Pet Bed", "Chew Toy", "Food Bowl"]),
    "grocery": ("Grocery", ["Green Tea", "Olive Oil", "Dark Chocolate", "Honey", "Coffee Beans",
                            "Granola"]),
}
BRANDS = ["Acme", "Nordic", "Lumen", "Vertex", "Orchid", "Pioneer", "Zenith", "Harbor",
          "Maple", "Quartz", "Solace", "Tundra", "Willow", "Cobalt", "Ember"]
ADJECTIVES = ["Classic", "Compact", "Deluxe", "Eco", "Pro", "Ultra", "Smart", "Travel",
              "Premium", "Mini", "Max", "Lite"]
COLORS = ["Black", "White", "Red", "Blue", "Green", "Grey", "Silver", "Pink", "Yellow"]
FIRST = ["Alex", "Emma", "Liam", "Olivia", "Noah", "Ava", "Mason", "Sophia", "Lucas", "Mia",
         "Ethan", "Isabella", "Logan", "Amelia", "Jacob", "Harper", "Daniel", "Evelyn", "Henry",
         "Abigail", "Samuel", "Grace", "Owen", "Chloe", "Jack", "Lily", "Leo", "Zoe"]
LAST = ["Morgan", "Smith", "Johnson", "Garcia", "Brown", "Lee", "Walker", "Hall", "Young",
        "King", "Wright", "Lopez", "Hill", "Scott", "Green", "Adams", "Baker", "Nelson",
        "Carter", "Mitchell", "Perez", "Roberts", "Turner", "Phillips"]
PLACES = [(city, "NY") for city, _lat, _lon in CITIES]
"""Customers live in the map's cities, so admin and map tasks can be combined."""
REVIEW_TITLES = {
    1: ["Broke quickly", "Waste of money", "Very disappointed"],
    2: ["Not great", "Below expectations", "Cheap feel"],
    3: ["It's okay", "Average product", "Does the job"],
    4: ["Pretty good", "Solid choice", "Happy with it"],
    5: ["Excellent!", "Love it", "Best purchase this year"],
}
REVIEW_BODIES = {
    1: "Stopped working after a week and support never answered.",
    2: "The quality is lower than the photos suggest.",
    3: "Fine for the price, nothing special.",
    4: "Works well, arrived on time, would buy again.",
    5: "Fantastic quality, exceeded my expectations in every way.",
}
ORDER_STATUSES = ["pending", "processing", "complete", "complete", "complete", "canceled"]
SHOP_USER = ("alex.morgan@shop.test", "Shop!2024")
"""Storefront login of the customer whose account tasks use (customer id 1)."""
ADMIN_USER = ("admin", "Admin!2024")
"""Admin panel login."""


def build_shop(conn: sqlite3.Connection, seed: int = 7) -> None:
    """Create and fill the shop tables in ``conn``."""
    rng = random.Random(seed)
    conn.executescript(SCHEMA)
    for i, (slug, (name, _)) in enumerate(CATEGORIES.items(), 1):
        conn.execute("INSERT INTO categories VALUES (?, ?, ?)", (i, slug, name))
    names: set[str] = set()
    pid = 0
    for cat_id, (_slug, (_cat, nouns)) in enumerate(CATEGORIES.items(), 1):
        for _ in range(36):
            while True:
                name = f"{rng.choice(BRANDS)} {rng.choice(ADJECTIVES)} {rng.choice(nouns)}"
                if name not in names:
                    break
            names.add(name)
            pid += 1
            price = round(rng.uniform(4, 250), 2)
            color = rng.choice(COLORS)
            stock = rng.randint(0, 120)
            status = "disabled" if rng.random() < 0.06 else "enabled"
            desc = f"The {name} in {color.lower()} is a {rng.choice(['durable', 'lightweight', 'popular', 'versatile'])} pick for everyday use."  # noqa: E501
            conn.execute(
                "INSERT INTO products VALUES (?,?,?,?,?,?,?,?,?,?)",
                (pid, f"SKU-{pid:05d}", name, cat_id, name.split()[0], color, price, stock,
                 status, desc),
            )
    n_products = pid
    for cid in range(1, 81):
        first, last = (("Alex", "Morgan") if cid == 1 else
                       (rng.choice(FIRST), rng.choice(LAST)))
        email = SHOP_USER[0] if cid == 1 else f"{first.lower()}.{last.lower()}{cid}@mail.test"
        city, state = rng.choice(PLACES)
        group = rng.choice(["General", "General", "Wholesale", "VIP"])
        conn.execute("INSERT INTO customers VALUES (?,?,?,?,?,?,?,?)",
                     (cid, first, last, email, city, state,
                      f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}", group))
    conn.execute("INSERT INTO users VALUES (?, ?, 1)", SHOP_USER)
    conn.execute("INSERT INTO users VALUES (?, ?, NULL)", ADMIN_USER)
    start = date(2022, 1, 1)
    rid = 0
    for p in range(1, n_products + 1):
        for _ in range(rng.choice([0, 1, 2, 2, 3, 4, 5])):
            rid += 1
            rating = rng.choices([1, 2, 3, 4, 5], weights=[1, 1, 2, 4, 4])[0]
            nick = f"{rng.choice(FIRST)}{rng.choice(LAST)[0]}"
            created = (start + timedelta(days=rng.randint(0, 700))).isoformat()
            conn.execute("INSERT INTO reviews VALUES (?,?,?,?,?,?,?)",
                         (rid, p, nick, rating, rng.choice(REVIEW_TITLES[rating]),
                          REVIEW_BODIES[rating], created))
    for oid in range(1, 301):
        cust = 1 if oid % 10 == 0 else rng.randint(2, 80)
        placed = start + timedelta(days=rng.randint(0, 729))
        total = 0.0
        items = rng.sample(range(1, n_products + 1), rng.randint(1, 4))
        for prod in items:
            price = conn.execute("SELECT price FROM products WHERE id=?", (prod,)).fetchone()[0]
            qty = rng.randint(1, 3)
            total += price * qty
            conn.execute("INSERT INTO order_items (order_id, product_id, qty, price) "
                         "VALUES (?,?,?,?)", (oid, prod, qty, price))
        conn.execute("INSERT INTO orders VALUES (?,?,?,?,?,?)",
                     (oid, f"{100000000 + oid}", cust, rng.choice(ORDER_STATUSES),
                      placed.isoformat(), round(total, 2)))
    build_shop_marketing(conn)
