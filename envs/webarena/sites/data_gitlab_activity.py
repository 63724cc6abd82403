"""The code-hosting site's activity: commits, merge request assignees and reviewers,
to-do items, and the profile fields (status, website, feed token) of every user.

Filled after :func:`.data_gitlab.build_gitlab`'s tables, from its own random generator, so the
older content (and every task computed from it) is unchanged.
"""

from __future__ import annotations

import random
import sqlite3
import string
from datetime import date, timedelta

ACTIVITY_SCHEMA = """
CREATE TABLE commits (id INTEGER PRIMARY KEY, project_id INTEGER, sha TEXT UNIQUE,
  author_id INTEGER, message TEXT, created TEXT);
CREATE TABLE todos (id INTEGER PRIMARY KEY, user_id INTEGER, project_id INTEGER, kind TEXT,
  target TEXT, action TEXT, author_id INTEGER, created TEXT, state TEXT);
ALTER TABLE merge_requests ADD COLUMN assignee_id INTEGER;
ALTER TABLE merge_requests ADD COLUMN reviewer_id INTEGER;
ALTER TABLE users ADD COLUMN status TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN website TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN feed_token TEXT NOT NULL DEFAULT '';
"""
VERBS = ["Fix", "Add", "Update", "Remove", "Refactor", "Document", "Test", "Rename"]
THINGS = ["README", "CI config", "login flow", "error handling", "unit tests", "changelog",
          "dependencies", "build script", "parser", "docs index", "release notes", "linter rules"]
TODO_ACTIONS = ["assigned you", "mentioned you", "requested your review", "set you as approver"]
STATUSES = ["Working from home", "In a meeting", "Busy", "Out sick", "Commuting", ""]


def build_gitlab_activity(conn: sqlite3.Connection, seed: int = 29) -> None:
    """Add the commits, to-dos, merge request people and profile fields to ``conn``."""
    rng = random.Random(seed)
    conn.executescript(ACTIVITY_SCHEMA)
    users = [r[0] for r in conn.execute("SELECT id FROM users ORDER BY id")]
    alphabet = string.ascii_letters + string.digits
    for uid in users:
        token = "glft-" + "".join(rng.choice(alphabet) for _ in range(20))
        status = "" if uid == 1 else rng.choice(STATUSES)
        conn.execute("UPDATE users SET feed_token = ?, status = ? WHERE id = ?",
                     (token, status, uid))
    for (mid,) in conn.execute("SELECT id FROM merge_requests ORDER BY id").fetchall():
        assignee = rng.choice([None, 1, *rng.sample(users[1:], 3)])
        reviewer = rng.choice([None, 1, *rng.sample(users[1:], 3)])
        conn.execute("UPDATE merge_requests SET assignee_id = ?, reviewer_id = ? WHERE id = ?",
                     (assignee, reviewer, mid))
    shas: set[str] = set()
    for (pid,) in conn.execute("SELECT id FROM projects ORDER BY id").fetchall():
        people = [r[0] for r in conn.execute("SELECT user_id FROM members WHERE project_id = ? "
                                             "ORDER BY user_id", (pid,))]
        weights = [rng.randint(1, 9) for _ in people]
        start = date(2023, 1, 2) + timedelta(days=rng.randint(0, 300))
        for _ in range(rng.randint(8, 30)):
            sha = "".join(rng.choice("0123456789abcdef") for _ in range(40))
            if sha in shas:
                continue
            shas.add(sha)
            author = rng.choices(people, weights)[0]
            when = start + timedelta(days=rng.randint(0, 20))
            conn.execute("INSERT INTO commits (project_id, sha, author_id, message, created) "
                         "VALUES (?,?,?,?,?)", (pid, sha, author,
                                                f"{rng.choice(VERBS)} {rng.choice(THINGS)}",
                                                when.isoformat()))
    targets = conn.execute("SELECT project_id, 'Issue' AS kind, title FROM issues UNION ALL "
                           "SELECT project_id, 'Merge request', title FROM merge_requests"
                           ).fetchall()
    for uid in users:
        for project_id, kind, title in rng.sample(targets, rng.randint(2, 6)):
            conn.execute("INSERT INTO todos (user_id, project_id, kind, target, action, "
                         "author_id, created, state) VALUES (?,?,?,?,?,?,?,?)",
                         (uid, project_id, kind, title, rng.choice(TODO_ACTIONS),
                          rng.choice(users), (date(2023, 6, 1) + timedelta(
                              days=rng.randint(0, 180))).isoformat(), "pending"))
