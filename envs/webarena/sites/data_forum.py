"""Deterministic content of the forum (``__REDDIT__``): forums, users, posts, comments, votes."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta

SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT UNIQUE, password TEXT, joined TEXT,
  bio TEXT);
CREATE TABLE forums (id INTEGER PRIMARY KEY, name TEXT UNIQUE, title TEXT, description TEXT);
CREATE TABLE subscriptions (user_id INTEGER, forum_id INTEGER, PRIMARY KEY (user_id, forum_id));
CREATE TABLE posts (id INTEGER PRIMARY KEY, forum_id INTEGER, user_id INTEGER, title TEXT,
  body TEXT, score INTEGER, created TEXT);
CREATE TABLE comments (id INTEGER PRIMARY KEY, post_id INTEGER, user_id INTEGER, body TEXT,
  score INTEGER, created TEXT);
CREATE TABLE votes (user_id INTEGER, post_id INTEGER, value INTEGER,
  PRIMARY KEY (user_id, post_id));
"""

FORUMS = {
    "books": ("Books", ["novel", "author", "chapter", "library", "poetry collection"]),
    "movies": ("Movies", ["director", "trailer", "sequel", "soundtrack", "film festival"]),
    "gaming": ("Gaming", ["console", "speedrun", "indie game", "patch", "controller"]),
    "science": ("Science", ["telescope", "experiment", "fossil", "vaccine", "particle"]),
    "cooking": ("Cooking", ["sourdough", "cast iron", "curry", "knife", "spice rack"]),
    "travel": ("Travel", ["hostel", "night train", "visa", "backpack", "road trip"]),
    "music": ("Music", ["vinyl", "guitar", "concert", "playlist", "synthesizer"]),
    "gardening": ("Gardening", ["tomato", "compost", "seedling", "greenhouse", "pruning"]),
    "fitness": ("Fitness", ["deadlift", "marathon", "stretching", "protein", "rest day"]),
    "technology": ("Technology", ["laptop", "open source", "router", "keyboard", "battery"]),
    "history": ("History", ["castle", "archive", "empire", "treaty", "manuscript"]),
    "photography": ("Photography", ["lens", "tripod", "film camera", "sunset", "darkroom"]),
}
TITLE_PATTERNS = [
    "What is your favourite {w}?", "Thoughts on the new {w}", "Need advice about my {w}",
    "I finally tried a {w} today", "Unpopular opinion: the {w} is overrated",
    "Best {w} recommendations for beginners?", "My {w} story from last weekend",
    "Is a {w} worth it in 2023?", "Look at this {w} I found",
]
COMMENT_TEXTS = [
    "Totally agree with this.", "I had the same experience last year.",
    "Could you share more details?", "This is the best advice in the thread.",
    "I respectfully disagree.", "Thanks for posting, very helpful!", "Came here to say this.",
    "Source? I would like to read more.", "Bookmarked for later.", "Great write-up.",
]
ADJ = ["quiet", "lucky", "brave", "clever", "sunny", "rapid", "misty", "silver", "cosmic",
       "gentle", "wild", "frozen", "golden", "crimson", "hidden", "noble"]
NOUN = ["otter", "falcon", "maple", "comet", "river", "panda", "cedar", "lynx", "harbor",
        "willow", "badger", "pixel", "koala", "raven", "tiger", "meadow"]
FORUM_USER = ("MarvelsGrantMan136", "Forum!2024")
"""Login of the forum account tasks use (user id 1)."""


def build_forum(conn: sqlite3.Connection, seed: int = 11) -> None:
    """Create and fill the forum tables in ``conn``."""
    rng = random.Random(seed)
    conn.executescript(SCHEMA)
    base = datetime(2023, 1, 1)
    usernames = [FORUM_USER[0]]
    while len(usernames) < 90:
        name = f"{rng.choice(ADJ)}_{rng.choice(NOUN)}{rng.randint(1, 99)}"
        if name not in usernames:
            usernames.append(name)
    for uid, name in enumerate(usernames, 1):
        pw = FORUM_USER[1] if uid == 1 else f"pw-{uid}"
        joined = (base - timedelta(days=rng.randint(30, 1500))).date().isoformat()
        conn.execute("INSERT INTO users VALUES (?,?,?,?,?)",
                     (uid, name, pw, joined, f"Hello, I am {name}."))
    for fid, (name, (title, words)) in enumerate(FORUMS.items(), 1):
        conn.execute("INSERT INTO forums VALUES (?,?,?,?)",
                     (fid, name, title, f"A community for everything about {title.lower()}: "
                      f"{', '.join(words[:3])} and more."))
    for fid in rng.sample(range(1, len(FORUMS) + 1), 4):
        conn.execute("INSERT INTO subscriptions VALUES (1, ?)", (fid,))
    titles: set[str] = set()
    pid = cid = 0
    for fid, (_name, (_title, words)) in enumerate(FORUMS.items(), 1):
        for _ in range(36):
            while True:
                title = rng.choice(TITLE_PATTERNS).format(w=rng.choice(words))
                if rng.random() < 0.5:
                    title += f" ({rng.choice(['part', 'update', 'day'])} {rng.randint(2, 40)})"
                if title not in titles:
                    break
            titles.add(title)
            pid += 1
            uid = rng.randint(2, len(usernames))
            created = base + timedelta(minutes=rng.randint(0, 525600))
            body = (f"I have been thinking about {rng.choice(words)} and {rng.choice(words)} "
                    f"lately. {rng.choice(COMMENT_TEXTS)}")
            conn.execute("INSERT INTO posts VALUES (?,?,?,?,?,?,?)",
                         (pid, fid, uid, title, body, rng.randint(-5, 400),
                          created.isoformat(sep=" ", timespec="minutes")))
            for _ in range(rng.randint(0, 6)):
                cid += 1
                ctime = created + timedelta(minutes=rng.randint(1, 5000))
                conn.execute("INSERT INTO comments VALUES (?,?,?,?,?,?)",
                             (cid, pid, rng.randint(2, len(usernames)),
                              rng.choice(COMMENT_TEXTS), rng.randint(-3, 80),
                              ctime.isoformat(sep=" ", timespec="minutes")))
