"""``bank``: branches, customers, accounts with transactions, cards and loans."""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta

from ..common import CITIES, email_for, insert_rows, iso_date, maybe, person_name, random_date
from ..templates import t

DB_ID = "bank"

SCHEMA = """
CREATE TABLE branches (
    branch_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL
);
CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL,
    birth_date TEXT NOT NULL,
    city TEXT NOT NULL,
    segment TEXT NOT NULL,
    joined_on TEXT NOT NULL
);
CREATE TABLE accounts (
    account_id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
    branch_id INTEGER NOT NULL REFERENCES branches (branch_id),
    account_type TEXT NOT NULL,
    currency TEXT NOT NULL,
    opened_on TEXT NOT NULL,
    closed_on TEXT,
    balance REAL NOT NULL
);
CREATE TABLE transactions (
    transaction_id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (account_id),
    txn_date TEXT NOT NULL,
    txn_type TEXT NOT NULL,
    amount REAL NOT NULL,
    merchant TEXT,
    category TEXT
);
CREATE TABLE cards (
    card_id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (account_id),
    card_type TEXT NOT NULL,
    issued_on TEXT NOT NULL,
    expires_on TEXT NOT NULL,
    is_active INTEGER NOT NULL,
    daily_limit INTEGER NOT NULL
);
CREATE TABLE loans (
    loan_id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
    branch_id INTEGER NOT NULL REFERENCES branches (branch_id),
    principal REAL NOT NULL,
    interest_rate REAL NOT NULL,
    start_date TEXT NOT NULL,
    term_months INTEGER NOT NULL,
    status TEXT NOT NULL
);
"""

_BRANCH_CITIES = (0, 2, 5, 8, 11, 14, 17, 20)  # indexes into CITIES
_CURRENCY = {"USA": "USD", "Canada": "CAD", "UK": "GBP", "France": "EUR", "Germany": "EUR",
             "Spain": "EUR"}
_MERCHANTS = (  # merchant, category, typical amount
    ("FreshMart", "groceries", 60), ("GreenGrocer", "groceries", 35), ("QuickFuel", "fuel", 55),
    ("CityTransit", "transport", 3), ("RideNow", "transport", 18), ("Bistro Luca", "dining", 45),
    ("Coffee Corner", "dining", 6), ("StreamFlix", "entertainment", 15),
    ("Cinema Paradiso", "entertainment", 24), ("TechWorld", "electronics", 300),
    ("HomeBase", "home", 120), ("PowerGrid Energy", "utilities", 90),
    ("AquaWorks", "utilities", 40), ("Wellness Pharmacy", "health", 25),
)


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    branches = [(i + 1, f"{CITIES[c][0]} {'Main' if i < 4 else 'Central'}", *CITIES[c])
                for i, c in enumerate(_BRANCH_CITIES)]
    insert_rows(conn, "branches", branches)
    customers = []
    for cid in range(1, 251):
        first, last = person_name(rng)
        home = rng.choices(branches, [8, 5, 4, 3, 3, 2, 2, 2])[0]
        customers.append((cid, first, last, email_for(first, last, cid, "bankmail.example"),
                          iso_date(random_date(rng, date(1940, 1, 1), date(2004, 12, 31))),
                          home[2], rng.choices(["retail", "premium", "business"], [7, 2, 1])[0],
                          iso_date(random_date(rng, date(2010, 1, 1), date(2023, 6, 30)))))
    insert_rows(conn, "customers", customers)
    accounts: list[tuple] = []
    for cust in customers[:236]:  # the last customers have no account yet
        branch = next(b for b in branches if b[2] == cust[5])
        kinds = rng.choice([["checking"], ["checking", "savings"], ["checking", "credit"],
                            ["savings"], ["checking", "savings", "credit"]])
        for kind in kinds:
            opened = random_date(rng, date.fromisoformat(cust[7]), date(2023, 12, 31))
            closed = maybe(rng, opened + timedelta(days=rng.randint(90, 1500)), 0.9)
            closed = closed if closed and closed < date(2024, 6, 30) else None
            currency = _CURRENCY[branch[3]] if rng.random() < 0.9 else "USD"
            balance = {"checking": rng.uniform(-200, 6000), "savings": rng.uniform(500, 60000),
                       "credit": -rng.uniform(0, 4000)}[kind]
            accounts.append((len(accounts) + 1, cust[0], branch[0], kind, currency,
                             iso_date(opened), iso_date(closed) if closed else None,
                             0.0 if closed else round(balance, 2)))
    insert_rows(conn, "accounts", accounts)
    txns = []
    for _ in range(2600):
        acct = rng.choice(accounts)
        start = date.fromisoformat(acct[5])
        end = date.fromisoformat(acct[6]) if acct[6] else date(2024, 6, 30)
        day = random_date(rng, start, end)
        kind = rng.choices(["purchase", "deposit", "withdrawal", "fee", "interest"],
                           [60, 15, 12, 5, 8] if acct[3] != "credit" else [85, 5, 0, 10, 0])[0]
        merchant = category = None
        if kind == "purchase":
            merchant, category, typical = rng.choice(_MERCHANTS)
            amount = -round(typical * rng.uniform(0.4, 2.2), 2)
        elif kind == "deposit":
            amount = round(rng.choice([250, 500, 1200, 2500, 3100]) * rng.uniform(0.9, 1.1), 2)
        elif kind == "withdrawal":
            amount = -float(rng.choice([20, 40, 60, 100, 200, 500]))
        elif kind == "fee":
            amount = -rng.choice([2.5, 5.0, 12.0, 25.0])
        else:
            amount = round(rng.uniform(0.5, 40), 2)
        txns.append((day, acct[0], kind, amount, merchant, category))
    txns.sort(key=lambda x: (x[0], x[1]))
    insert_rows(conn, "transactions",
                [(i + 1, x[1], iso_date(x[0]), *x[2:]) for i, x in enumerate(txns)])
    cards: list[tuple] = []
    for acct in accounts:
        if acct[3] == "savings" or rng.random() < 0.15:
            continue
        issued = date.fromisoformat(acct[5]) + timedelta(days=rng.randint(3, 30))
        cards.append((len(cards) + 1, acct[0], "credit" if acct[3] == "credit" else "debit",
                      iso_date(issued), iso_date(issued + timedelta(days=365 * 4)),
                      0 if (acct[6] and rng.random() < 0.8) or rng.random() < 0.07 else 1,
                      rng.choice([500, 1000, 1000, 2000, 5000])))
    insert_rows(conn, "cards", cards)
    loans = []
    for lid in range(1, 121):
        cust = customers[rng.randrange(236)]
        branch = next(b for b in branches if b[2] == cust[5])
        start = random_date(rng, date(2015, 1, 1), date(2024, 3, 31))
        term = rng.choice([12, 24, 36, 60, 120, 240, 360])
        done = start + timedelta(days=30 * term) < date(2024, 6, 30)
        status = "paid" if done else rng.choices(["active", "defaulted"], [93, 7])[0]
        loans.append((lid, cust[0], branch[0],
                      float(rng.choice([5, 10, 15, 25, 40, 80, 150, 300]) * 1000),
                      round(rng.uniform(2.5, 11.5), 2), iso_date(start), term, status))
    insert_rows(conn, "loans", loans)


TEMPLATES = [
    t("easy", "How many accounts are of type '{kind}'?",
      "SELECT COUNT(*) FROM accounts WHERE account_type = {kind}",
      kind="SELECT account_type FROM accounts"),
    t("easy", "What is the balance of the account with id {aid}?",
      "SELECT balance FROM accounts WHERE account_id = {aid}",
      aid="SELECT account_id FROM accounts WHERE balance <> 0"),
    t("easy", "List the ids of the accounts opened in {year} in the currency {cur}.",
      "SELECT account_id FROM accounts WHERE substr(opened_on, 1, 4) = {year} "
      "AND currency = {cur}", count=2,
      cur="SELECT currency FROM accounts",
      year="SELECT substr(opened_on, 1, 4) FROM accounts WHERE currency = {cur}"),
    t("easy", "How many accounts have been closed?",
      "SELECT COUNT(*) FROM accounts WHERE closed_on IS NOT NULL"),
    t("easy", "What is the largest single deposit amount?",
      "SELECT MAX(amount) FROM transactions WHERE txn_type = 'deposit'"),
    t("easy", "List the distinct merchants of the transactions in the '{cat}' category.",
      "SELECT DISTINCT merchant FROM transactions WHERE category = {cat}", count=2,
      cat="SELECT category FROM transactions WHERE category IS NOT NULL GROUP BY category "
      "HAVING COUNT(DISTINCT merchant) > 1"),
    t("easy", "How many customers belong to the '{segment}' segment?",
      "SELECT COUNT(*) FROM customers WHERE segment = {segment}", count=2,
      segment="SELECT segment FROM customers"),
    t("easy", "What is the total principal of the active loans?",
      "SELECT SUM(principal) FROM loans WHERE status = 'active'"),
    t("easy", "List the ids of the loans with an interest rate above {r} percent.",
      "SELECT loan_id FROM loans WHERE interest_rate > {r}", count=2,
      r="SELECT 9 UNION SELECT 10 UNION SELECT 11"),
    t("easy", "For each currency, what is the total balance of the open accounts, rounded to 2 "
      "decimals?",
      "SELECT currency, ROUND(SUM(balance), 2) FROM accounts WHERE closed_on IS NULL "
      "GROUP BY currency"),
    t("easy", "How many transactions were made on {day}?",
      "SELECT COUNT(*) FROM transactions WHERE txn_date = {day}", count=2,
      day="SELECT txn_date FROM transactions GROUP BY txn_date HAVING COUNT(*) > 1"),
    t("easy", "How many cards are inactive?", "SELECT COUNT(*) FROM cards WHERE is_active = 0"),
    t("easy", "List the names of the branches in {country}.",
      "SELECT name FROM branches WHERE country = {country}", count=2,
      country="SELECT country FROM branches"),
    t("easy", "For each transaction type, what is the average amount, rounded to 2 decimals?",
      "SELECT txn_type, ROUND(AVG(amount), 2) FROM transactions GROUP BY txn_type"),
    t("medium", "How many accounts does the customer with e-mail {email} hold?",
      "SELECT COUNT(*) FROM accounts a JOIN customers c ON c.customer_id = a.customer_id "
      "WHERE c.email = {email}", count=2,
      email="SELECT c.email FROM customers c JOIN accounts a ON a.customer_id = c.customer_id"),
    t("medium", "For each branch, give its name and the number of accounts it manages.",
      "SELECT b.name, COUNT(*) FROM branches b JOIN accounts a ON a.branch_id = b.branch_id "
      "GROUP BY b.branch_id, b.name"),
    t("medium", "What is the total amount spent on purchases (as a positive number) from the "
      "accounts of the customer with e-mail {email}, rounded to 2 decimals?",
      "SELECT ROUND(-SUM(t.amount), 2) FROM transactions t JOIN accounts a "
      "ON a.account_id = t.account_id JOIN customers c ON c.customer_id = a.customer_id "
      "WHERE c.email = {email} AND t.txn_type = 'purchase'", count=2,
      email="SELECT c.email FROM customers c JOIN accounts a ON a.customer_id = c.customer_id "
      "JOIN transactions t ON t.account_id = a.account_id WHERE t.txn_type = 'purchase'"),
    t("medium", "Which customers living in {city} have a savings account? Give their first and "
      "last names.",
      "SELECT DISTINCT c.first_name, c.last_name FROM customers c JOIN accounts a "
      "ON a.customer_id = c.customer_id WHERE c.city = {city} AND a.account_type = 'savings'",
      count=2, city="SELECT city FROM customers"),
    t("medium", "Which branches have lent a total principal above {x}? Give the branch name "
      "and the total principal.",
      "SELECT b.name, SUM(l.principal) FROM branches b JOIN loans l ON l.branch_id = b.branch_id "
      "GROUP BY b.branch_id, b.name HAVING SUM(l.principal) > {x}", count=2,
      x="SELECT 500000 UNION SELECT 1000000 UNION SELECT 1500000"),
    t("medium", "For each customer segment, what is the average interest rate of its loans, "
      "rounded to 2 decimals?",
      "SELECT c.segment, ROUND(AVG(l.interest_rate), 2) FROM customers c JOIN loans l "
      "ON l.customer_id = c.customer_id GROUP BY c.segment"),
    t("medium", "For the accounts of the {branch} branch, how many purchase transactions are "
      "there in each category?",
      "SELECT t.category, COUNT(*) FROM transactions t JOIN accounts a "
      "ON a.account_id = t.account_id JOIN branches b ON b.branch_id = a.branch_id "
      "WHERE b.name = {branch} AND t.txn_type = 'purchase' GROUP BY t.category", count=2,
      branch="SELECT name FROM branches"),
    t("medium", "Which customers have a defaulted loan? Give their distinct e-mail addresses.",
      "SELECT DISTINCT c.email FROM customers c JOIN loans l ON l.customer_id = c.customer_id "
      "WHERE l.status = 'defaulted'"),
    t("medium", "Which active cards belong to accounts that are already closed? Give the card "
      "ids.",
      "SELECT cd.card_id FROM cards cd JOIN accounts a ON a.account_id = cd.account_id "
      "WHERE cd.is_active = 1 AND a.closed_on IS NOT NULL", count=1),
    t("medium", "Which customers hold accounts in more than one currency? Give their e-mail "
      "addresses.",
      "SELECT c.email FROM customers c JOIN accounts a ON a.customer_id = c.customer_id "
      "GROUP BY c.customer_id, c.email HAVING COUNT(DISTINCT a.currency) > 1"),
    t("medium", "For each customer segment, how many distinct customers have at least one loan?",
      "SELECT c.segment, COUNT(DISTINCT c.customer_id) FROM customers c JOIN loans l "
      "ON l.customer_id = c.customer_id GROUP BY c.segment"),
    t("hard", "Which customers have no account? Give their e-mail addresses.",
      "SELECT email FROM customers c WHERE NOT EXISTS "
      "(SELECT 1 FROM accounts a WHERE a.customer_id = c.customer_id)"),
    t("hard", "Which open accounts have a balance above the average balance of the open "
      "accounts of the same type? Give the account ids.",
      "SELECT a.account_id FROM accounts a WHERE a.closed_on IS NULL AND a.balance > "
      "(SELECT AVG(a2.balance) FROM accounts a2 WHERE a2.account_type = a.account_type "
      "AND a2.closed_on IS NULL)"),
    t("hard", "For each branch, which customer has the largest total balance across their "
      "accounts at that branch? Give the branch name, the customer's e-mail and the total "
      "rounded to 2 decimals (include ties).",
      "WITH totals AS (SELECT a.branch_id, a.customer_id, SUM(a.balance) AS total, "
      "RANK() OVER (PARTITION BY a.branch_id ORDER BY SUM(a.balance) DESC) AS rk "
      "FROM accounts a GROUP BY a.branch_id, a.customer_id) SELECT b.name, c.email, "
      "ROUND(t.total, 2) FROM totals t JOIN branches b ON b.branch_id = t.branch_id "
      "JOIN customers c ON c.customer_id = t.customer_id WHERE t.rk = 1"),
    t("hard", "Give the ids of the customers who have both a loan and a credit account.",
      "SELECT customer_id FROM loans INTERSECT SELECT customer_id FROM accounts "
      "WHERE account_type = 'credit'"),
    t("hard", "For each month of {year} (YYYY-MM), give the total amount deposited and the "
      "running total since January, both rounded to 2 decimals, ordered by month.",
      "WITH monthly AS (SELECT substr(txn_date, 1, 7) AS month, SUM(amount) AS total "
      "FROM transactions WHERE txn_type = 'deposit' AND substr(txn_date, 1, 4) = {year} "
      "GROUP BY substr(txn_date, 1, 7)) SELECT month, ROUND(total, 2), "
      "ROUND(SUM(total) OVER (ORDER BY month), 2) FROM monthly ORDER BY month", count=2,
      year="SELECT '2022' UNION SELECT '2023'"),
    t("hard", "Which customers have a savings account but no checking account? Give their "
      "e-mail addresses.",
      "SELECT c.email FROM customers c JOIN accounts a ON a.customer_id = c.customer_id "
      "WHERE a.account_type = 'savings' EXCEPT SELECT c.email FROM customers c JOIN accounts a "
      "ON a.customer_id = c.customer_id WHERE a.account_type = 'checking'"),
    t("hard", "Rank the merchants by total amount spent with them (as a positive number), "
      "largest first: give the merchant, the total rounded to 2 decimals and the rank.",
      "SELECT merchant, ROUND(-SUM(amount), 2), RANK() OVER (ORDER BY SUM(amount)) "
      "FROM transactions WHERE merchant IS NOT NULL GROUP BY merchant"),
    t("hard", "Which accounts have more transactions than the average account with "
      "transactions? Give the account id and the number of transactions.",
      "WITH n AS (SELECT account_id, COUNT(*) AS c FROM transactions GROUP BY account_id) "
      "SELECT account_id, c FROM n WHERE c > (SELECT AVG(c) FROM n)"),
    t("hard", "Which loans have a principal larger than the total balance of all the "
      "borrower's accounts? Give the loan ids.",
      "WITH balances AS (SELECT customer_id, SUM(balance) AS total FROM accounts "
      "GROUP BY customer_id) SELECT l.loan_id FROM loans l JOIN balances b "
      "ON b.customer_id = l.customer_id WHERE l.principal > b.total"),
    t("hard", "What is the second largest withdrawal amount (as a positive number)?",
      "SELECT -MIN(amount) FROM transactions WHERE txn_type = 'withdrawal' AND amount > "
      "(SELECT MIN(amount) FROM transactions WHERE txn_type = 'withdrawal')"),
    t("hard", "Which customers with loans have repaid all of them (every loan has status "
      "'paid')? Give their e-mail addresses.",
      "SELECT c.email FROM customers c WHERE EXISTS (SELECT 1 FROM loans l "
      "WHERE l.customer_id = c.customer_id) AND NOT EXISTS (SELECT 1 FROM loans l "
      "WHERE l.customer_id = c.customer_id AND l.status <> 'paid')"),
]
