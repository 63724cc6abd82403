"""``library``: a city library's branches, authors, books, copies, members and loans."""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta

from ..common import (
    email_for,
    insert_rows,
    iso_date,
    maybe,
    person_name,
    random_date,
    skewed_choice,
)
from ..templates import t

DB_ID = "library"

SCHEMA = """
CREATE TABLE branches (
    branch_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    opened_year INTEGER NOT NULL
);
CREATE TABLE authors (
    author_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    birth_year INTEGER,
    country TEXT
);
CREATE TABLE books (
    book_id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    isbn TEXT NOT NULL,
    publication_year INTEGER NOT NULL,
    genre TEXT NOT NULL,
    pages INTEGER,
    publisher TEXT NOT NULL
);
CREATE TABLE book_authors (
    book_id INTEGER NOT NULL REFERENCES books (book_id),
    author_id INTEGER NOT NULL REFERENCES authors (author_id),
    PRIMARY KEY (book_id, author_id)
);
CREATE TABLE copies (
    copy_id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL REFERENCES books (book_id),
    branch_id INTEGER NOT NULL REFERENCES branches (branch_id),
    acquired_on TEXT NOT NULL,
    condition TEXT NOT NULL
);
CREATE TABLE members (
    member_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT NOT NULL,
    joined_on TEXT NOT NULL,
    home_branch_id INTEGER NOT NULL REFERENCES branches (branch_id),
    membership TEXT NOT NULL
);
CREATE TABLE loans (
    loan_id INTEGER PRIMARY KEY,
    copy_id INTEGER NOT NULL REFERENCES copies (copy_id),
    member_id INTEGER NOT NULL REFERENCES members (member_id),
    loan_date TEXT NOT NULL,
    due_date TEXT NOT NULL,
    return_date TEXT,
    fine REAL
);
"""

_BRANCHES = (("Central Library", 1921), ("Riverside Branch", 1964), ("Hillcrest Branch", 1978),
             ("Harbor Branch", 1995), ("Oakwood Branch", 2006), ("Northgate Branch", 2015))
_GENRES = ("Fiction", "Mystery", "Science Fiction", "Fantasy", "History", "Biography",
           "Science", "Poetry", "Travel", "Children")
_ADJECTIVES = ("Silent", "Hidden", "Last", "Golden", "Broken", "Distant", "Crimson", "Quiet",
               "Forgotten", "Endless", "Winter", "Northern", "Burning", "Secret", "Lost")
_NOUNS = ("River", "Garden", "Empire", "Mirror", "Voyage", "Harbor", "Forest", "Clock",
          "Letter", "Kingdom", "Island", "Station", "Mountain", "Orchard", "Lighthouse")
_PLACES = ("Avalon", "the North", "Venice", "the Sea", "Glass", "Ashes", "Stars", "Paris")
_PUBLISHERS = ("Penrose House", "Blue Heron Press", "Atlas & Vine", "Northlight Books",
               "Meridian Publishing", "Small Hours Press", "Granite Editions")
_COUNTRIES = ("USA", "UK", "France", "Germany", "Japan", "Canada", "Italy", "Spain")


def _title(rng: random.Random) -> str:
    """A plausible book title."""
    form = rng.randint(0, 3)
    noun, adj = rng.choice(_NOUNS), rng.choice(_ADJECTIVES)
    if form == 0:
        return f"The {adj} {noun}"
    if form == 1:
        return f"The {noun} of {rng.choice(_PLACES)}"
    if form == 2:
        article = "An" if adj[0] in "AEIOU" else "A"
        return f"{article} {adj} {noun} in {rng.choice(_PLACES)}"
    return f"{adj} {noun}s"


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    cities = ["Boston", "Boston", "Boston", "Cambridge", "Somerville", "Cambridge"]
    insert_rows(conn, "branches",
                [(i + 1, b[0], cities[i], b[1]) for i, b in enumerate(_BRANCHES)])
    authors = []
    for aid in range(1, 91):
        first, last = person_name(rng)
        born = maybe(rng, rng.randint(1850, 1990), 0.1)
        authors.append((aid, f"{first} {last}", born, maybe(rng, rng.choice(_COUNTRIES), 0.08)))
    insert_rows(conn, "authors", authors)
    books: list[tuple] = []
    titles: set[str] = set()
    links: list[tuple] = []
    while len(books) < 200:
        title = _title(rng)
        if title in titles:
            continue
        titles.add(title)
        bid = len(books) + 1
        lead = authors[skewed_choice(rng, range(90), 0.6)]
        low = max(1900, (lead[2] or 1930) + 22)
        year = rng.randint(min(low, 2023), 2023)
        books.append((bid, title, f"978-{rng.randint(0, 1)}-{rng.randint(10000, 99999)}-"
                      f"{rng.randint(100, 999)}-{bid % 10}", year, skewed_choice(rng, _GENRES, 0.7),
                      maybe(rng, rng.randint(24, 900), 0.07), rng.choice(_PUBLISHERS)))
        links.append((bid, lead[0]))
        if rng.random() < 0.15:
            co = rng.randint(1, 90)
            if co != lead[0]:
                links.append((bid, co))
    insert_rows(conn, "books", books)
    insert_rows(conn, "book_authors", links)
    copies: list[tuple] = []
    for book in books:
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4]) if book[0] > 5 else 1):
            copies.append((len(copies) + 1, book[0], skewed_choice(rng, range(1, 7), 0.6),
                           iso_date(random_date(rng, date(max(book[3], 2005), 1, 1),
                                                date(2024, 1, 31))),
                           rng.choices(["new", "good", "worn", "damaged"], [2, 6, 3, 1])[0]))
    insert_rows(conn, "copies", copies)
    members = []
    for mid in range(1, 301):
        first, last = person_name(rng)
        members.append((mid, first, last, email_for(first, last, mid, "mail.example"),
                        iso_date(random_date(rng, date(2012, 1, 1), date(2024, 1, 31))),
                        skewed_choice(rng, range(1, 7), 0.5),
                        rng.choices(["standard", "premium", "student"], [6, 2, 3])[0]))
    insert_rows(conn, "members", members)
    loans = []
    borrowed = [c for c in copies if c[1] % 11 != 0]  # books with id divisible by 11: never
    for lid in range(1, 1801):
        copy = rng.choice(borrowed)
        member = members[skewed_choice(rng, range(280), 0.4)]  # the last 20 never borrow
        start = max(date.fromisoformat(member[4]), date.fromisoformat(copy[3]))
        day = random_date(rng, start, date(2024, 6, 20))
        due = day + timedelta(days=21)
        back = day + timedelta(days=rng.choice([3, 7, 10, 14, 18, 20, 21, 25, 30, 45]))
        returned = back if back <= date(2024, 6, 30) and rng.random() > 0.04 else None
        late = (back - due).days if returned and back > due else 0
        loans.append((lid, copy[0], member[0], iso_date(day), iso_date(due),
                      iso_date(returned) if returned else None,
                      round(late * 0.25, 2) if late else None))
    insert_rows(conn, "loans", loans)


TEMPLATES = [
    t("easy", "How many books were published in {year}?",
      "SELECT COUNT(*) FROM books WHERE publication_year = {year}",
      year="SELECT publication_year FROM books GROUP BY publication_year HAVING COUNT(*) > 1"),
    t("easy", "Give the e-mail addresses of the members with a '{m}' membership.",
      "SELECT email FROM members WHERE membership = {m}", count=2,
      m="SELECT membership FROM members"),
    t("easy", "What is the ISBN of the book titled '{title}'?",
      "SELECT isbn FROM books WHERE title = {title}", count=2, title="SELECT title FROM books"),
    t("easy", "How many loans have not been returned yet?",
      "SELECT COUNT(*) FROM loans WHERE return_date IS NULL"),
    t("easy", "List the titles of the {genre} books with more than {pages} pages.",
      "SELECT title FROM books WHERE genre = {genre} AND pages > {pages}", count=2,
      genre="SELECT genre FROM books", pages="SELECT 200 UNION SELECT 300"),
    t("easy", "What is the total amount of fines charged, rounded to 2 decimals?",
      "SELECT ROUND(SUM(fine), 2) FROM loans"),
    t("easy", "How many copies are in '{condition}' condition?",
      "SELECT COUNT(*) FROM copies WHERE condition = {condition}", count=2,
      condition="SELECT condition FROM copies"),
    t("easy", "List the names of the authors born before {year}.",
      "SELECT name FROM authors WHERE birth_year < {year}", count=2,
      year="SELECT 1880 UNION SELECT 1900 UNION SELECT 1920"),
    t("easy", "Which branches opened after {year}? Give their names.",
      "SELECT name FROM branches WHERE opened_year > {year}", count=2,
      year="SELECT 1950 UNION SELECT 1970 UNION SELECT 1990"),
    t("easy", "How many members joined in {year}?",
      "SELECT COUNT(*) FROM members WHERE substr(joined_on, 1, 4) = {year}", count=2,
      year="SELECT substr(joined_on, 1, 4) FROM members"),
    t("easy", "What is the average number of pages of the {genre} books, rounded to 1 decimal?",
      "SELECT ROUND(AVG(pages), 1) FROM books WHERE genre = {genre}", count=2,
      genre="SELECT genre FROM books"),
    t("easy", "What are the titles and publication years of the 3 oldest books, oldest first "
      "(books of the same year in alphabetical order of title)?",
      "SELECT title, publication_year FROM books ORDER BY publication_year, title LIMIT 3"),
    t("easy", "List the distinct publishers in alphabetical order.",
      "SELECT DISTINCT publisher FROM books ORDER BY publisher"),
    t("medium", "How many copies of '{title}' does the library own?",
      "SELECT COUNT(*) FROM copies c JOIN books b ON b.book_id = c.book_id "
      "WHERE b.title = {title}", count=2,
      title="SELECT b.title FROM books b JOIN copies c ON c.book_id = b.book_id"),
    t("medium", "List the titles of the books written by {author}.",
      "SELECT b.title FROM books b JOIN book_authors ba ON ba.book_id = b.book_id "
      "JOIN authors a ON a.author_id = ba.author_id WHERE a.name = {author}", count=2,
      author="SELECT a.name FROM authors a JOIN book_authors ba ON ba.author_id = a.author_id "
      "GROUP BY a.author_id, a.name HAVING COUNT(*) > 1"),
    t("medium", "For each branch, give its name and the number of copies it holds.",
      "SELECT br.name, COUNT(*) FROM branches br JOIN copies c ON c.branch_id = br.branch_id "
      "GROUP BY br.branch_id, br.name"),
    t("medium", "Which members have made more than {n} loans? Give their e-mail and number of "
      "loans.",
      "SELECT m.email, COUNT(*) FROM members m JOIN loans l ON l.member_id = m.member_id "
      "GROUP BY m.member_id, m.email HAVING COUNT(*) > {n}", count=2,
      n="SELECT 15 UNION SELECT 20 UNION SELECT 25"),
    t("medium", "For each genre, how many loans were made of books of that genre?",
      "SELECT b.genre, COUNT(*) FROM loans l JOIN copies c ON c.copy_id = l.copy_id "
      "JOIN books b ON b.book_id = c.book_id GROUP BY b.genre"),
    t("medium", "List the distinct titles of the books borrowed by the member with e-mail "
      "{email}.",
      "SELECT DISTINCT b.title FROM books b JOIN copies c ON c.book_id = b.book_id "
      "JOIN loans l ON l.copy_id = c.copy_id JOIN members m ON m.member_id = l.member_id "
      "WHERE m.email = {email}", count=2,
      email="SELECT m.email FROM members m JOIN loans l ON l.member_id = m.member_id"),
    t("medium", "Which authors have written more than {n} books? Give the name and the number "
      "of books.",
      "SELECT a.name, COUNT(*) FROM authors a JOIN book_authors ba ON ba.author_id = a.author_id "
      "GROUP BY a.author_id, a.name HAVING COUNT(*) > {n}", count=2,
      n="SELECT 3 UNION SELECT 5 UNION SELECT 8"),
    t("medium", "What is the total of the fines charged to members whose home branch is "
      "{branch}, rounded to 2 decimals?",
      "SELECT ROUND(SUM(l.fine), 2) FROM loans l JOIN members m ON m.member_id = l.member_id "
      "JOIN branches b ON b.branch_id = m.home_branch_id WHERE b.name = {branch}", count=2,
      branch="SELECT name FROM branches"),
    t("medium", "For each branch, how many loans of its copies were returned after the due "
      "date? Give the branch name and the count.",
      "SELECT br.name, COUNT(*) FROM loans l JOIN copies c ON c.copy_id = l.copy_id "
      "JOIN branches br ON br.branch_id = c.branch_id WHERE l.return_date > l.due_date "
      "GROUP BY br.branch_id, br.name"),
    t("medium", "Which books have more than one author? Give their titles.",
      "SELECT b.title FROM books b JOIN book_authors ba ON ba.book_id = b.book_id "
      "GROUP BY b.book_id, b.title HAVING COUNT(*) > 1"),
    t("hard", "Which books have never been borrowed? Give their titles.",
      "SELECT b.title FROM books b WHERE NOT EXISTS (SELECT 1 FROM copies c JOIN loans l "
      "ON l.copy_id = c.copy_id WHERE c.book_id = b.book_id)"),
    t("hard", "For each branch, which book was borrowed most often from its copies? Give the "
      "branch name, the book title and the number of loans (include ties).",
      "SELECT name, title, n FROM (SELECT br.name, b.title, COUNT(*) AS n, RANK() OVER "
      "(PARTITION BY br.branch_id ORDER BY COUNT(*) DESC) AS rk FROM loans l JOIN copies c "
      "ON c.copy_id = l.copy_id JOIN books b ON b.book_id = c.book_id JOIN branches br "
      "ON br.branch_id = c.branch_id GROUP BY br.branch_id, br.name, b.book_id, b.title) x "
      "WHERE rk = 1"),
    t("hard", "Give the e-mail addresses of the members who borrowed both a {g1} book and a "
      "{g2} book.",
      "SELECT m.email FROM members m JOIN loans l ON l.member_id = m.member_id JOIN copies c "
      "ON c.copy_id = l.copy_id JOIN books b ON b.book_id = c.book_id WHERE b.genre = {g1} "
      "INTERSECT SELECT m.email FROM members m JOIN loans l ON l.member_id = m.member_id "
      "JOIN copies c ON c.copy_id = l.copy_id JOIN books b ON b.book_id = c.book_id "
      "WHERE b.genre = {g2}", count=2,
      g1="SELECT genre FROM books", g2="SELECT genre FROM books WHERE genre > {g1}"),
    t("hard", "Which authors have books published both before 1970 and after 2000? Give their "
      "names.",
      "SELECT name FROM authors WHERE author_id IN (SELECT ba.author_id FROM book_authors ba "
      "JOIN books b ON b.book_id = ba.book_id WHERE b.publication_year < 1970 INTERSECT "
      "SELECT ba.author_id FROM book_authors ba JOIN books b ON b.book_id = ba.book_id "
      "WHERE b.publication_year > 2000)"),
    t("hard", "For each month of {year} (YYYY-MM), give the number of loans and the running "
      "total of loans since January, ordered by month.",
      "WITH monthly AS (SELECT substr(loan_date, 1, 7) AS month, COUNT(*) AS n FROM loans "
      "WHERE substr(loan_date, 1, 4) = {year} GROUP BY substr(loan_date, 1, 7)) "
      "SELECT month, n, SUM(n) OVER (ORDER BY month) FROM monthly ORDER BY month", count=2,
      year="SELECT '2022' UNION SELECT '2023'"),
    t("hard", "Which members have never borrowed a book? Give their e-mail addresses.",
      "SELECT email FROM members EXCEPT SELECT m.email FROM members m JOIN loans l "
      "ON l.member_id = m.member_id"),
    t("hard", "Which books have more copies than the average number of copies per book (over "
      "books with at least one copy)? Give the title and the number of copies.",
      "WITH counts AS (SELECT book_id, COUNT(*) AS n FROM copies GROUP BY book_id) "
      "SELECT b.title, c.n FROM books b JOIN counts c ON c.book_id = b.book_id "
      "WHERE c.n > (SELECT AVG(n) FROM counts)"),
    t("hard", "Which genres have an average page count above the average page count of all "
      "books? Give the genres.",
      "SELECT genre FROM books GROUP BY genre HAVING AVG(pages) > (SELECT AVG(pages) FROM books)"),
    t("hard", "For each author country, which author has written the most books? Give the "
      "country, the author's name and the number of books (include ties).",
      "SELECT country, name, n FROM (SELECT a.country, a.name, COUNT(*) AS n, RANK() OVER "
      "(PARTITION BY a.country ORDER BY COUNT(*) DESC) AS rk FROM authors a JOIN book_authors ba "
      "ON ba.author_id = a.author_id WHERE a.country IS NOT NULL "
      "GROUP BY a.author_id, a.country, a.name) x WHERE rk = 1"),
]
