"""``store``: an online shop with categories, suppliers, products, customers, orders, reviews."""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta

from ..common import (
    CITIES,
    email_for,
    insert_rows,
    iso_date,
    maybe,
    person_name,
    random_date,
    skewed_choice,
)
from ..templates import t

DB_ID = "store"

SCHEMA = """
CREATE TABLE categories (
    category_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    parent_id INTEGER REFERENCES categories (category_id)
);
CREATE TABLE suppliers (
    supplier_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL,
    contact_email TEXT
);
CREATE TABLE products (
    product_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    category_id INTEGER NOT NULL REFERENCES categories (category_id),
    supplier_id INTEGER NOT NULL REFERENCES suppliers (supplier_id),
    price REAL NOT NULL,
    stock INTEGER NOT NULL,
    discontinued INTEGER NOT NULL,
    added_on TEXT NOT NULL
);
CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL,
    signup_date TEXT NOT NULL,
    loyalty_tier TEXT
);
CREATE TABLE orders (
    order_id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
    order_date TEXT NOT NULL,
    status TEXT NOT NULL,
    shipping_city TEXT NOT NULL
);
CREATE TABLE order_items (
    order_id INTEGER NOT NULL REFERENCES orders (order_id),
    product_id INTEGER NOT NULL REFERENCES products (product_id),
    quantity INTEGER NOT NULL,
    unit_price REAL NOT NULL,
    PRIMARY KEY (order_id, product_id)
);
CREATE TABLE reviews (
    review_id INTEGER PRIMARY KEY,
    product_id INTEGER NOT NULL REFERENCES products (product_id),
    customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
    rating INTEGER NOT NULL,
    review_date TEXT NOT NULL,
    comment TEXT
);
"""

_CATEGORIES = [  # (name, parent index or None, product nouns, price range)
    ("Electronics", None, (), (0, 0)),
    ("Laptops", 0, ("Laptop", "Notebook", "Ultrabook"), (450, 2400)),
    ("Phones", 0, ("Phone", "Smartphone"), (150, 1300)),
    ("Audio", 0, ("Headphones", "Speaker", "Earbuds", "Soundbar"), (20, 450)),
    ("Home", None, (), (0, 0)),
    ("Kitchen", 4, ("Blender", "Kettle", "Toaster", "Pan Set", "Knife Block"), (15, 300)),
    ("Furniture", 4, ("Desk", "Chair", "Bookshelf", "Lamp"), (40, 900)),
    ("Outdoors", None, (), (0, 0)),
    ("Camping", 7, ("Tent", "Sleeping Bag", "Lantern", "Backpack"), (25, 600)),
    ("Cycling", 7, ("Helmet", "Bike Light", "Bike Lock", "Saddle"), (12, 250)),
    ("Toys", None, ("Puzzle", "Robot Kit", "Board Game", "Plush Bear"), (8, 120)),
    ("Books", None, ("Cookbook", "Novel", "Atlas", "Field Guide"), (7, 60)),
]
_BRANDS = "Aurora Nimbus Vertex Orbit Pioneer Summit Zephyr Atlas Nova Quill Harbor Lumen".split()
_SUPPLIERS = [
    ("Acme Trading", "USA"), ("Blue River Goods", "USA"), ("Nordic Supply", "Sweden"),
    ("Kanto Imports", "Japan"), ("Rhine Wholesale", "Germany"), ("Iberia Partners", "Spain"),
    ("Maple Distribution", "Canada"), ("Thames Traders", "UK"), ("Lotus Exports", "India"),
    ("Pampas Commerce", "Brazil"), ("Alpine Direct", "Germany"), ("Pacific Rim Co", "Japan"),
    ("Golden Gate Supply", "USA"), ("Seine Logistics", "France"), ("Danube Goods", "Germany"),
]
_STATUSES = ("delivered", "shipped", "pending", "cancelled", "returned")
_COMMENTS = (
    "Great value", "Works as described", "Arrived late", "Would buy again", "Poor quality",
    "Excellent", "Not as pictured", "Good gift", None,
)


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    insert_rows(
        conn,
        "categories",
        [(i + 1, c[0], None if c[1] is None else c[1] + 1) for i, c in enumerate(_CATEGORIES)],
    )
    insert_rows(
        conn,
        "suppliers",
        [
            (i + 1, name, country, maybe(rng, f"sales@{name.split()[0].lower()}.example", 0.25))
            for i, (name, country) in enumerate(_SUPPLIERS)
        ],
    )
    products: list[tuple] = []
    leaves = [i for i, c in enumerate(_CATEGORIES) if c[2]]
    names: set[str] = set()
    while len(products) < 90:
        cat = skewed_choice(rng, leaves, 0.4)
        _, _, nouns, (low, high) = _CATEGORIES[cat]
        model = rng.choice(["", "Pro ", "Mini ", "Max "]) + str(rng.randint(1, 9))
        name = f"{rng.choice(_BRANDS)} {rng.choice(nouns)} {model}"
        if name in names:
            continue
        names.add(name)
        price = round(rng.uniform(low, high), 2) - (0.01 if rng.random() < 0.6 else 0)
        added = random_date(rng, date(2019, 1, 1), date(2023, 12, 31))
        products.append(
            (len(products) + 1, name, cat + 1, skewed_choice(rng, range(1, 16), 0.7),
             round(price, 2), rng.choice([0, 0, 3, 12, 25, 40, 80, 150]),
             int(rng.random() < 0.12), iso_date(added))
        )
    insert_rows(conn, "products", products)
    customers = []
    for cid in range(1, 221):
        first, last = person_name(rng)
        # the last 20 customers live in cities no order ships to, and never order
        city, country = skewed_choice(rng, CITIES[:30] if cid <= 200 else CITIES[30:], 0.9)
        customers.append(
            (cid, first, last, email_for(first, last, cid), city, country,
             iso_date(random_date(rng, date(2019, 6, 1), date(2024, 3, 31))),
             maybe(rng, skewed_choice(rng, ["bronze", "silver", "gold"]), 0.45))
        )
    insert_rows(conn, "customers", customers)
    orders, items = [], []
    popular = [p[0] for p in products[:78]]  # the last 12 products are never ordered
    for oid in range(1, 701):
        cust = customers[skewed_choice(rng, range(200), 0.5)]
        signup = date.fromisoformat(cust[6])
        day = random_date(rng, signup + timedelta(days=1), date(2024, 6, 30))
        ship = cust[4] if rng.random() < 0.9 else skewed_choice(rng, CITIES[:20], 1.0)[0]
        orders.append((oid, cust[0], iso_date(day), skewed_choice(rng, _STATUSES, 1.3), ship))
        for pid in rng.sample(popular, k=rng.choice([1, 1, 2, 2, 3, 4])):
            base = products[pid - 1][4]
            unit = round(base * rng.choice([1, 1, 1, 0.9, 0.8]), 2)
            items.append((oid, pid, rng.choice([1, 1, 1, 2, 2, 3, 5]), unit))
    insert_rows(conn, "orders", orders)
    insert_rows(conn, "order_items", items)
    reviews = []
    for rid in range(1, 401):
        pid = rng.choice(popular)
        rating = rng.choices([1, 2, 3, 4, 5], weights=[1, 1, 2, 4, 5])[0]
        reviews.append(
            (rid, pid, rng.randint(1, 220), rating,
             iso_date(random_date(rng, date(2020, 1, 1))), rng.choice(_COMMENTS))
        )
    insert_rows(conn, "reviews", reviews)


TEMPLATES = [
    t("easy", "How many customers live in {city}?",
      "SELECT COUNT(*) FROM customers WHERE city = {city}",
      city="SELECT city FROM customers"),
    t("easy", "What is the price of the product named '{product}'?",
      "SELECT price FROM products WHERE name = {product}",
      product="SELECT name FROM products"),
    t("easy", "List the names of products that cost more than {price} dollars.",
      "SELECT name FROM products WHERE price > {price}", count=2,
      price="SELECT DISTINCT CAST(price / 100 AS INTEGER) * 100 FROM products WHERE price > 300"),
    t("easy", "How many orders have the status '{status}'?",
      "SELECT COUNT(*) FROM orders WHERE status = {status}",
      status="SELECT status FROM orders"),
    t("easy", "List the first and last names of customers who have no loyalty tier.",
      "SELECT first_name, last_name FROM customers WHERE loyalty_tier IS NULL"),
    t("easy", "What are the 5 most expensive products? Give their names and prices, most "
      "expensive first.",
      "SELECT name, price FROM products ORDER BY price DESC LIMIT 5"),
    t("easy", "How many products are discontinued?",
      "SELECT COUNT(*) FROM products WHERE discontinued = 1"),
    t("easy", "List the distinct countries of the suppliers in alphabetical order.",
      "SELECT DISTINCT country FROM suppliers ORDER BY country"),
    t("easy", "Give the e-mail addresses of the customers who signed up in {year}.",
      "SELECT email FROM customers WHERE substr(signup_date, 1, 4) = {year}", count=2,
      year="SELECT substr(signup_date, 1, 4) FROM customers"),
    t("easy", "What is the average rating over all reviews, rounded to 2 decimals?",
      "SELECT ROUND(AVG(rating), 2) FROM reviews"),
    t("easy", "How many orders were placed in the month {month} (year-month)?",
      "SELECT COUNT(*) FROM orders WHERE substr(order_date, 1, 7) = {month}", count=2,
      month="SELECT substr(order_date, 1, 7) FROM orders"),
    t("easy", "What is the total stock of all products from the supplier with id {sid}?",
      "SELECT SUM(stock) FROM products WHERE supplier_id = {sid}", count=2,
      sid="SELECT supplier_id FROM products GROUP BY supplier_id HAVING SUM(stock) > 0"),
    t("medium", "For each customer living in {city} who has placed at least one order, give "
      "the first name, last name and number of orders.",
      "SELECT c.first_name, c.last_name, COUNT(*) FROM customers c JOIN orders o "
      "ON o.customer_id = c.customer_id WHERE c.city = {city} "
      "GROUP BY c.customer_id, c.first_name, c.last_name", count=2,
      city="SELECT city FROM customers"),
    t("medium", "For each category that has products, give the category name and the number of "
      "products in it.",
      "SELECT c.name, COUNT(*) FROM categories c JOIN products p ON p.category_id = c.category_id "
      "GROUP BY c.category_id, c.name"),
    t("medium", "What is the total revenue (quantity times unit price) of orders with status "
      "'{status}', rounded to 2 decimals?",
      "SELECT ROUND(SUM(oi.quantity * oi.unit_price), 2) FROM order_items oi JOIN orders o "
      "ON o.order_id = oi.order_id WHERE o.status = {status}", count=2,
      status="SELECT status FROM orders"),
    t("medium", "Which suppliers from {country} supply products in the '{category}' category? "
      "List their distinct names.",
      "SELECT DISTINCT s.name FROM suppliers s JOIN products p ON p.supplier_id = s.supplier_id "
      "JOIN categories c ON c.category_id = p.category_id WHERE s.country = {country} "
      "AND c.name = {category}", count=2,
      country="SELECT country FROM suppliers",
      category="SELECT c.name FROM categories c JOIN products p ON p.category_id = c.category_id "
      "JOIN suppliers s ON s.supplier_id = p.supplier_id WHERE s.country = {country}"),
    t("medium", "List the names of products whose average review rating is at least {r}, with "
      "that average rounded to 2 decimals.",
      "SELECT p.name, ROUND(AVG(r.rating), 2) FROM products p JOIN reviews r "
      "ON r.product_id = p.product_id GROUP BY p.product_id, p.name HAVING AVG(r.rating) >= {r}",
      count=2, r="SELECT 4 UNION SELECT 4.5"),
    t("medium", "Which customers have placed more than {n} orders? Give their e-mail and their "
      "number of orders.",
      "SELECT c.email, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
      "GROUP BY c.customer_id, c.email HAVING COUNT(*) > {n}", count=2,
      n="SELECT 8 UNION SELECT 10 UNION SELECT 12"),
    t("medium", "For each supplier country, what is the average price of the products supplied "
      "from it, rounded to 2 decimals?",
      "SELECT s.country, ROUND(AVG(p.price), 2) FROM suppliers s JOIN products p "
      "ON p.supplier_id = s.supplier_id GROUP BY s.country"),
    t("medium", "List the distinct names of the products ordered by the customer with e-mail "
      "{email}.",
      "SELECT DISTINCT p.name FROM products p JOIN order_items oi ON oi.product_id = p.product_id "
      "JOIN orders o ON o.order_id = oi.order_id JOIN customers c ON c.customer_id = o.customer_id "
      "WHERE c.email = {email}", count=2,
      email="SELECT c.email FROM customers c JOIN orders o ON o.customer_id = c.customer_id"),
    t("medium", "How many distinct customers reviewed products from the supplier '{supplier}'?",
      "SELECT COUNT(DISTINCT r.customer_id) FROM reviews r JOIN products p "
      "ON p.product_id = r.product_id JOIN suppliers s ON s.supplier_id = p.supplier_id "
      "WHERE s.name = {supplier}", count=2,
      supplier="SELECT name FROM suppliers"),
    t("hard", "Which products have never been ordered? Give their names.",
      "SELECT name FROM products WHERE product_id NOT IN "
      "(SELECT product_id FROM order_items)"),
    t("hard", "List the names of the products priced above the average price of their own "
      "category.",
      "SELECT p.name FROM products p WHERE p.price > "
      "(SELECT AVG(p2.price) FROM products p2 WHERE p2.category_id = p.category_id)"),
    t("hard", "For each category with products, give the category name and the name and price "
      "of its most expensive product.",
      "SELECT name, product, price FROM (SELECT c.name, p.name AS product, p.price, "
      "RANK() OVER (PARTITION BY c.category_id ORDER BY p.price DESC) AS rk FROM categories c "
      "JOIN products p ON p.category_id = c.category_id) ranked WHERE rk = 1"),
    t("hard", "Give the ids of the customers who have at least one cancelled order and at least "
      "one returned order.",
      "SELECT customer_id FROM orders WHERE status = 'cancelled' INTERSECT "
      "SELECT customer_id FROM orders WHERE status = 'returned'"),
    t("hard", "Which cities are home to some customer but never appear as an order's shipping "
      "city?",
      "SELECT city FROM customers EXCEPT SELECT shipping_city FROM orders"),
    t("hard", "For each month of {year}, give the month (YYYY-MM), that month's revenue "
      "(quantity times unit price, rounded to 2 decimals) and the running total of revenue "
      "since the start of the year (rounded to 2 decimals), ordered by month.",
      "WITH monthly AS (SELECT substr(o.order_date, 1, 7) AS month, "
      "SUM(oi.quantity * oi.unit_price) AS revenue FROM orders o JOIN order_items oi "
      "ON oi.order_id = o.order_id WHERE substr(o.order_date, 1, 4) = {year} "
      "GROUP BY substr(o.order_date, 1, 7)) SELECT month, ROUND(revenue, 2), "
      "ROUND(SUM(revenue) OVER (ORDER BY month), 2) FROM monthly ORDER BY month", count=2,
      year="SELECT '2022' UNION SELECT '2023'"),
    t("hard", "Which customers spent more than the average amount spent per customer (over "
      "customers with orders)? Give first name, last name and amount spent rounded to 2 "
      "decimals.",
      "WITH spend AS (SELECT o.customer_id, SUM(oi.quantity * oi.unit_price) AS total "
      "FROM orders o JOIN order_items oi ON oi.order_id = o.order_id GROUP BY o.customer_id) "
      "SELECT c.first_name, c.last_name, ROUND(s.total, 2) FROM customers c JOIN spend s "
      "ON s.customer_id = c.customer_id WHERE s.total > (SELECT AVG(total) FROM spend)"),
    t("hard", "How many products are in the '{top}' category, counting all of its "
      "subcategories?",
      "WITH RECURSIVE sub(id) AS (SELECT category_id FROM categories WHERE name = {top} "
      "UNION ALL SELECT c.category_id FROM categories c JOIN sub ON c.parent_id = sub.id) "
      "SELECT COUNT(*) FROM products WHERE category_id IN (SELECT id FROM sub)", count=2,
      top="SELECT name FROM categories WHERE parent_id IS NULL AND category_id IN "
      "(SELECT parent_id FROM categories)"),
    t("hard", "Which products received both a 5-star and a 1-star review? Give their names.",
      "SELECT p.name FROM products p JOIN reviews r ON r.product_id = p.product_id "
      "WHERE r.rating = 5 INTERSECT SELECT p.name FROM products p JOIN reviews r "
      "ON r.product_id = p.product_id WHERE r.rating = 1"),
    t("hard", "For each country, which customer placed the most orders? Give the country, the "
      "customer's e-mail and the number of orders (list every customer tied for first).",
      "SELECT country, email, n FROM (SELECT c.country, c.email, COUNT(*) AS n, "
      "RANK() OVER (PARTITION BY c.country ORDER BY COUNT(*) DESC) AS rk FROM customers c "
      "JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.country, c.email) "
      "ranked WHERE rk = 1"),
]
