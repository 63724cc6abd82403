"""``movies``: films, genres, people who act in or direct them, and users' ratings."""

from __future__ import annotations

import random
import sqlite3
from datetime import date

from ..common import insert_rows, iso_date, maybe, person_name, random_date, skewed_choice
from ..templates import t

DB_ID = "movies"

SCHEMA = """
CREATE TABLE genres (
    genre_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE movies (
    movie_id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    release_year INTEGER NOT NULL,
    runtime_minutes INTEGER NOT NULL,
    language TEXT NOT NULL,
    budget_musd REAL,
    box_office_musd REAL
);
CREATE TABLE movie_genres (
    movie_id INTEGER NOT NULL REFERENCES movies (movie_id),
    genre_id INTEGER NOT NULL REFERENCES genres (genre_id),
    PRIMARY KEY (movie_id, genre_id)
);
CREATE TABLE people (
    person_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    birth_year INTEGER,
    country TEXT
);
CREATE TABLE cast_members (
    movie_id INTEGER NOT NULL REFERENCES movies (movie_id),
    person_id INTEGER NOT NULL REFERENCES people (person_id),
    character_name TEXT NOT NULL,
    billing_order INTEGER NOT NULL,
    PRIMARY KEY (movie_id, person_id)
);
CREATE TABLE directors (
    movie_id INTEGER NOT NULL REFERENCES movies (movie_id),
    person_id INTEGER NOT NULL REFERENCES people (person_id),
    PRIMARY KEY (movie_id, person_id)
);
CREATE TABLE users (
    user_id INTEGER PRIMARY KEY,
    username TEXT NOT NULL,
    country TEXT NOT NULL,
    joined_on TEXT NOT NULL
);
CREATE TABLE ratings (
    user_id INTEGER NOT NULL REFERENCES users (user_id),
    movie_id INTEGER NOT NULL REFERENCES movies (movie_id),
    score INTEGER NOT NULL,
    rated_on TEXT NOT NULL,
    PRIMARY KEY (user_id, movie_id)
);
"""

_GENRES = ("Drama", "Comedy", "Action", "Thriller", "Science Fiction", "Romance", "Horror",
           "Animation", "Documentary", "Adventure")
_LANGUAGES = ("English", "French", "Spanish", "Japanese", "Korean", "German", "Italian", "Hindi")
_WORDS = ("Shadow", "Storm", "Echo", "Horizon", "Ember", "Tide", "Signal", "Frontier", "Orbit",
          "Mirage", "Harvest", "Cipher", "Vertigo", "Lantern", "Meridian", "Avalanche")
_ADJECTIVES = ("Dark", "Silver", "Broken", "Midnight", "Wild", "Hollow", "Electric", "Last",
               "Scarlet", "Frozen", "Golden", "Silent")
_COUNTRIES = ("USA", "UK", "France", "Spain", "Japan", "South Korea", "Germany", "Italy", "India",
              "Canada")
_ROLES = ("Detective", "Captain", "Doctor", "Professor", "Agent", "Mayor", "Pilot", "Nurse")


def _titles(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct film titles, a few of them sequels."""
    titles: list[str] = []
    while len(titles) < n:
        form = rng.randint(0, 4)
        word, adj = rng.choice(_WORDS), rng.choice(_ADJECTIVES)
        title = [f"{adj} {word}", f"The {word}", f"{word} Rising", f"Return of the {word}",
                 f"The {adj} {word}"][form]
        if title in titles:
            title = f"{title} {rng.randint(2, 3)}"
        if title not in titles:
            titles.append(title)
    return titles


def populate(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Fill every table with seeded data."""
    insert_rows(conn, "genres", [(i + 1, g) for i, g in enumerate(_GENRES)])
    movies, links = [], []
    for mid, title in enumerate(_titles(rng, 180), start=1):
        budget = maybe(rng, round(rng.lognormvariate(3.2, 0.9), 1), 0.2)
        box = maybe(rng, round((budget or 30) * rng.lognormvariate(0.7, 0.8), 1), 0.15)
        movies.append((mid, title, rng.randint(1975, 2024), rng.randint(78, 190),
                       skewed_choice(rng, _LANGUAGES, 1.4), budget, box))
        for g in rng.sample(range(1, 11), k=rng.choice([1, 1, 2, 2, 3])):
            links.append((mid, g))
    insert_rows(conn, "movies", movies)
    insert_rows(conn, "movie_genres", sorted(links))
    people = []
    for pid in range(1, 251):
        first, last = person_name(rng)
        people.append((pid, f"{first} {last}", maybe(rng, rng.randint(1930, 2005), 0.1),
                       maybe(rng, skewed_choice(rng, _COUNTRIES, 1.0), 0.1)))
    insert_rows(conn, "people", people)
    cast: list[tuple] = []
    directing: list[tuple] = []
    for movie in movies:
        actors = rng.sample(range(1, 221), k=rng.randint(3, 7))  # 221..250 only direct
        for order, person in enumerate(sorted(actors, key=lambda p: (p % 13, p)), start=1):
            actor = skewed_choice(rng, range(1, 221), 0.3) if order == 1 else person
            if any(c[0] == movie[0] and c[1] == actor for c in cast[-8:]):
                continue
            cast.append((movie[0], actor, f"{rng.choice(_ROLES)} {person_name(rng)[1]}", order))
        directing.append((movie[0], rng.choice(list(range(200, 251)))))
    insert_rows(conn, "cast_members", sorted(cast))
    insert_rows(conn, "directors", sorted(set(directing)))
    users = []
    for uid in range(1, 251):
        first, last = person_name(rng)
        users.append((uid, f"{first.lower()}_{last[:3].lower()}{uid}",
                      skewed_choice(rng, _COUNTRIES, 0.8),
                      iso_date(random_date(rng, date(2015, 1, 1), date(2023, 12, 31)))))
    insert_rows(conn, "users", users)
    ratings: dict[tuple[int, int], tuple] = {}
    quality = {m[0]: rng.gauss(6.5, 1.4) for m in movies}
    rated = [m[0] for m in movies if m[0] % 17 != 0]  # some films nobody rated
    for _ in range(2600):
        user = skewed_choice(rng, users, 0.5)
        movie_id = skewed_choice(rng, rated, 0.3)
        score = max(1, min(10, round(rng.gauss(quality[movie_id], 1.5))))
        when = random_date(rng, date.fromisoformat(user[3]))
        ratings.setdefault((user[0], movie_id), (user[0], movie_id, score, iso_date(when)))
    insert_rows(conn, "ratings", [ratings[k] for k in sorted(ratings)])


TEMPLATES = [
    t("easy", "How many movies were released in {year}?",
      "SELECT COUNT(*) FROM movies WHERE release_year = {year}",
      year="SELECT release_year FROM movies"),
    t("easy", "What is the runtime in minutes of the movie '{title}'?",
      "SELECT runtime_minutes FROM movies WHERE title = {title}",
      title="SELECT title FROM movies"),
    t("easy", "List the titles of the {lang}-language movies longer than {m} minutes.",
      "SELECT title FROM movies WHERE language = {lang} AND runtime_minutes > {m}", count=2,
      lang="SELECT language FROM movies", m="SELECT 100 UNION SELECT 120"),
    t("easy", "How many movies have no recorded budget?",
      "SELECT COUNT(*) FROM movies WHERE budget_musd IS NULL"),
    t("easy", "Which movie earned the most at the box office? Give its title.",
      "SELECT title FROM movies WHERE box_office_musd IS NOT NULL "
      "ORDER BY box_office_musd DESC LIMIT 1"),
    t("easy", "How many users are from {country}?",
      "SELECT COUNT(*) FROM users WHERE country = {country}", count=2,
      country="SELECT country FROM users"),
    t("easy", "What is the average score over all ratings, rounded to 2 decimals?",
      "SELECT ROUND(AVG(score), 2) FROM ratings"),
    t("easy", "List the usernames of the users who joined in {year}.",
      "SELECT username FROM users WHERE substr(joined_on, 1, 4) = {year}", count=2,
      year="SELECT substr(joined_on, 1, 4) FROM users"),
    t("easy", "List the titles and release years of the movies released from {y1} to {y2} "
      "inclusive.",
      "SELECT title, release_year FROM movies WHERE release_year BETWEEN {y1} AND {y2}", count=2,
      y1="SELECT 1980 UNION SELECT 1990 UNION SELECT 2000",
      y2="SELECT {y1} + 4 UNION SELECT {y1} + 9"),
    t("easy", "For each language, how many movies are in that language?",
      "SELECT language, COUNT(*) FROM movies GROUP BY language"),
    t("easy", "How many ratings give a perfect score of 10?",
      "SELECT COUNT(*) FROM ratings WHERE score = 10"),
    t("easy", "List the names of the people born after {year}.",
      "SELECT name FROM people WHERE birth_year > {year}", count=2,
      year="SELECT 1990 UNION SELECT 1995 UNION SELECT 2000"),
    t("easy", "What is the longest runtime of any movie, in minutes?",
      "SELECT MAX(runtime_minutes) FROM movies"),
    t("easy", "For each country, how many people in the database come from it (ignore people "
      "with no country)?",
      "SELECT country, COUNT(*) FROM people WHERE country IS NOT NULL GROUP BY country"),
    t("medium", "How many movies belong to the {genre} genre?",
      "SELECT COUNT(*) FROM movie_genres mg JOIN genres g ON g.genre_id = mg.genre_id "
      "WHERE g.name = {genre}", count=2, genre="SELECT name FROM genres"),
    t("medium", "List the titles of the movies in which {actor} appeared.",
      "SELECT m.title FROM movies m JOIN cast_members c ON c.movie_id = m.movie_id "
      "JOIN people p ON p.person_id = c.person_id WHERE p.name = {actor}", count=2,
      actor="SELECT p.name FROM people p JOIN cast_members c ON c.person_id = p.person_id "
      "GROUP BY p.person_id, p.name HAVING COUNT(*) BETWEEN 3 AND 8"),
    t("medium", "What is the average rating score of the movie '{title}', rounded to 2 "
      "decimals?",
      "SELECT ROUND(AVG(r.score), 2) FROM ratings r JOIN movies m ON m.movie_id = r.movie_id "
      "WHERE m.title = {title}", count=2,
      title="SELECT m.title FROM movies m JOIN ratings r ON r.movie_id = m.movie_id"),
    t("medium", "Who directed the movie '{title}'? Give the name.",
      "SELECT p.name FROM people p JOIN directors d ON d.person_id = p.person_id "
      "JOIN movies m ON m.movie_id = d.movie_id WHERE m.title = {title}", count=2,
      title="SELECT title FROM movies"),
    t("medium", "For each genre, what is the average runtime of its movies, rounded to 1 "
      "decimal?",
      "SELECT g.name, ROUND(AVG(m.runtime_minutes), 1) FROM genres g JOIN movie_genres mg "
      "ON mg.genre_id = g.genre_id JOIN movies m ON m.movie_id = mg.movie_id "
      "GROUP BY g.genre_id, g.name"),
    t("medium", "Which people appeared as actors in more than {n} movies? Give the name and the "
      "number of movies.",
      "SELECT p.name, COUNT(*) FROM people p JOIN cast_members c ON c.person_id = p.person_id "
      "GROUP BY p.person_id, p.name HAVING COUNT(*) > {n}", count=2,
      n="SELECT 6 UNION SELECT 8 UNION SELECT 10"),
    t("medium", "Which movies have at least {n} ratings and an average score of at least 7? "
      "Give the title and the number of ratings.",
      "SELECT m.title, COUNT(*) FROM movies m JOIN ratings r ON r.movie_id = m.movie_id "
      "GROUP BY m.movie_id, m.title HAVING COUNT(*) >= {n} AND AVG(r.score) >= 7", count=2,
      n="SELECT 10 UNION SELECT 15 UNION SELECT 20"),
    t("medium", "What is the total box office, in millions of dollars, of the movies directed "
      "by {director}? Round to 1 decimal.",
      "SELECT ROUND(SUM(m.box_office_musd), 1) FROM movies m JOIN directors d "
      "ON d.movie_id = m.movie_id JOIN people p ON p.person_id = d.person_id "
      "WHERE p.name = {director}", count=2,
      director="SELECT p.name FROM people p JOIN directors d ON d.person_id = p.person_id "
      "JOIN movies m ON m.movie_id = d.movie_id WHERE m.box_office_musd IS NOT NULL"),
    t("medium", "Which users rated the movie '{title}' 9 or higher? Give their usernames.",
      "SELECT u.username FROM users u JOIN ratings r ON r.user_id = u.user_id JOIN movies m "
      "ON m.movie_id = r.movie_id WHERE m.title = {title} AND r.score >= 9",
      title="SELECT m.title FROM movies m JOIN ratings r ON r.movie_id = m.movie_id "
      "WHERE r.score >= 9"),
    t("medium", "For each movie released in {year}, how many cast members does it have? Give "
      "the title and the count.",
      "SELECT m.title, COUNT(*) FROM movies m JOIN cast_members c ON c.movie_id = m.movie_id "
      "WHERE m.release_year = {year} GROUP BY m.movie_id, m.title", count=2,
      year="SELECT release_year FROM movies GROUP BY release_year HAVING COUNT(*) > 2"),
    t("hard", "Which movies have not been rated by any user? Give their titles.",
      "SELECT title FROM movies m WHERE NOT EXISTS "
      "(SELECT 1 FROM ratings r WHERE r.movie_id = m.movie_id)"),
    t("hard", "For each genre, which movie has the highest average rating? Give the genre, the "
      "title and the average rounded to 2 decimals (include ties).",
      "WITH avgs AS (SELECT g.name AS genre, m.title, AVG(r.score) AS avg_score, "
      "RANK() OVER (PARTITION BY g.genre_id ORDER BY AVG(r.score) DESC) AS rk FROM genres g "
      "JOIN movie_genres mg ON mg.genre_id = g.genre_id JOIN movies m ON m.movie_id = mg.movie_id "
      "JOIN ratings r ON r.movie_id = m.movie_id GROUP BY g.genre_id, g.name, m.movie_id, "
      "m.title) SELECT genre, title, ROUND(avg_score, 2) FROM avgs WHERE rk = 1"),
    t("hard", "Which people have both acted in a movie and directed a movie? Give their names.",
      "SELECT name FROM people WHERE person_id IN (SELECT person_id FROM cast_members "
      "INTERSECT SELECT person_id FROM directors)"),
    t("hard", "Which movies earned more at the box office than the average box office of the "
      "movies released the same year? Give their titles.",
      "SELECT m.title FROM movies m WHERE m.box_office_musd > (SELECT AVG(m2.box_office_musd) "
      "FROM movies m2 WHERE m2.release_year = m.release_year)"),
    t("hard", "For each decade (1970, 1980, ...), give the decade, the number of movies "
      "released in it and the cumulative number of movies up to that decade, ordered by "
      "decade.",
      "WITH d AS (SELECT release_year / 10 * 10 AS decade, COUNT(*) AS n FROM movies "
      "GROUP BY release_year / 10 * 10) SELECT decade, n, SUM(n) OVER (ORDER BY decade) "
      "FROM d ORDER BY decade"),
    t("hard", "Which actors appeared both in a movie of the {g1} genre and in a movie of the "
      "{g2} genre? Give their names.",
      "SELECT name FROM people WHERE person_id IN (SELECT c.person_id FROM cast_members c "
      "JOIN movie_genres mg ON mg.movie_id = c.movie_id JOIN genres g "
      "ON g.genre_id = mg.genre_id WHERE g.name = {g1} INTERSECT SELECT c.person_id "
      "FROM cast_members c JOIN movie_genres mg ON mg.movie_id = c.movie_id JOIN genres g "
      "ON g.genre_id = mg.genre_id WHERE g.name = {g2})", count=2,
      g1="SELECT name FROM genres", g2="SELECT name FROM genres WHERE name > {g1}"),
    t("hard", "Which users have rated more movies than the average user who rated any? Give "
      "the username and the number of ratings.",
      "WITH n AS (SELECT user_id, COUNT(*) AS c FROM ratings GROUP BY user_id) "
      "SELECT u.username, n.c FROM users u JOIN n ON n.user_id = u.user_id "
      "WHERE n.c > (SELECT AVG(c) FROM n)"),
    t("hard", "Which people have directed a movie but never acted in one? Give their names.",
      "SELECT name FROM people WHERE person_id IN (SELECT person_id FROM directors EXCEPT "
      "SELECT person_id FROM cast_members)"),
    t("hard", "Rank the movies released in {year} by box office, highest first: give the title, "
      "the box office and the rank (equal amounts share a rank); skip movies with no box "
      "office figure.",
      "SELECT title, box_office_musd, RANK() OVER (ORDER BY box_office_musd DESC) FROM movies "
      "WHERE release_year = {year} AND box_office_musd IS NOT NULL", count=2,
      year="SELECT release_year FROM movies WHERE box_office_musd IS NOT NULL "
      "GROUP BY release_year HAVING COUNT(*) >= 3"),
    t("hard", "Which movies made a profit (box office minus budget) larger than the average "
      "profit of the movies with both figures known? Give the title and the profit.",
      "SELECT title, box_office_musd - budget_musd FROM movies WHERE box_office_musd - "
      "budget_musd > (SELECT AVG(box_office_musd - budget_musd) FROM movies)"),
    t("hard", "Which actor has the most leading roles (billing order 1)? Give the name and the "
      "number of leading roles (include ties).",
      "WITH leads AS (SELECT person_id, COUNT(*) AS n FROM cast_members WHERE billing_order = 1 "
      "GROUP BY person_id) SELECT p.name, l.n FROM leads l JOIN people p "
      "ON p.person_id = l.person_id WHERE l.n = (SELECT MAX(n) FROM leads)"),
]
