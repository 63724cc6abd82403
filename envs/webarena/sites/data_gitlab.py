"""Deterministic content of the code-hosting site (``__GITLAB__``).

Projects with issues, merge requests, labels and members, owned by users and groups.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta

from .data_gitlab_activity import build_gitlab_activity

SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT UNIQUE, name TEXT, password TEXT);
CREATE TABLE projects (id INTEGER PRIMARY KEY, namespace TEXT, name TEXT, description TEXT,
  stars INTEGER, forks INTEGER, language TEXT, created TEXT, UNIQUE (namespace, name));
CREATE TABLE members (project_id INTEGER, user_id INTEGER, role TEXT,
  PRIMARY KEY (project_id, user_id));
CREATE TABLE labels (id INTEGER PRIMARY KEY, project_id INTEGER, name TEXT, color TEXT,
  UNIQUE (project_id, name));
CREATE TABLE issues (id INTEGER PRIMARY KEY, project_id INTEGER, iid INTEGER, title TEXT,
  body TEXT, state TEXT, author_id INTEGER, assignee_id INTEGER, created TEXT,
  UNIQUE (project_id, iid));
CREATE TABLE issue_labels (issue_id INTEGER, label_id INTEGER, PRIMARY KEY (issue_id, label_id));
CREATE TABLE notes (id INTEGER PRIMARY KEY, issue_id INTEGER, author_id INTEGER, body TEXT,
  created TEXT);
CREATE TABLE merge_requests (id INTEGER PRIMARY KEY, project_id INTEGER, iid INTEGER,
  title TEXT, source_branch TEXT, target_branch TEXT, state TEXT, author_id INTEGER,
  created TEXT, UNIQUE (project_id, iid));
"""

GITLAB_USER = ("byteblaze", "Gitlab!2024")
"""Login of the account tasks use (user id 1)."""
NAMESPACES = ["byteblaze", "a11yproject", "primer", "kilo-org", "nebula-labs", "openmap"]
PROJECT_WORDS = ["dotfiles", "design-system", "cli-toolkit", "web-scraper", "chat-bot",
                 "data-pipeline", "image-resizer", "markdown-editor", "static-site",
                 "api-gateway", "task-runner", "log-viewer", "weather-app", "budget-tracker",
                 "recipe-box", "pixel-art", "map-tiles", "auth-service", "cache-layer",
                 "docs-portal", "game-engine", "color-picker", "unit-converter", "note-sync",
                 "file-sharer", "metrics-agent", "form-builder", "i18n-kit", "theme-park",
                 "queue-worker", "search-index", "video-transcoder"]
LANGUAGES = ["Python", "JavaScript", "TypeScript", "Go", "Rust", "Ruby", "Shell"]
LABELS = [("bug", "#d9534f"), ("feature", "#5cb85c"), ("documentation", "#428bca"),
          ("enhancement", "#5bc0de"), ("help wanted", "#f0ad4e"), ("question", "#8e44ad"),
          ("accessibility", "#34495e")]
ISSUE_PATTERNS = ["Crash when {x}", "Add support for {x}", "Docs: explain {x}",
                  "Improve performance of {x}", "Typo in {x} page", "Flaky test for {x}",
                  "Keyboard navigation broken in {x}", "Refactor {x} module"]
TOPICS = ["login form", "config parser", "dark mode", "export to CSV", "search results",
          "file upload", "settings page", "date picker", "notifications", "API pagination",
          "error messages", "the installer", "screen reader labels", "caching", "sorting"]
ROLES = ["Guest", "Reporter", "Developer", "Maintainer"]
PEOPLE = ["Ada Park", "Ben Ortiz", "Cleo Nash", "Dev Patel", "Eli Brooks", "Fay Chen",
          "Gus Ward", "Hana Sato", "Ivan Petrov", "Jade Kim", "Kai Lund", "Lena Roth",
          "Milo Grant", "Nora Haas", "Omar Aziz", "Pia Vogel", "Quinn Reyes", "Rosa Diaz",
          "Sami Noor", "Theo Blake", "Uma Iyer", "Vera Holm", "Wes Cole", "Xia Wen",
          "Yuri Bond", "Zoe Hart", "Abel Fox", "Bea Lowe", "Cyrus Dean", "Dina Moss"]


def build_gitlab(conn: sqlite3.Connection, seed: int = 13) -> None:
    """Create and fill the code-hosting tables in ``conn``."""
    rng = random.Random(seed)
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO users VALUES (1, ?, 'Byte Blaze', ?)", GITLAB_USER)
    for uid, person in enumerate(PEOPLE, 2):
        first, last = person.lower().split()
        conn.execute("INSERT INTO users VALUES (?,?,?,?)",
                     (uid, f"{first}{last[0]}", person, f"pw-{uid}"))
    n_users = len(PEOPLE) + 1
    base = datetime(2021, 6, 1)
    words = PROJECT_WORDS[:]
    rng.shuffle(words)
    issue_id = mr_id = note_id = label_id = 0
    for pid, name in enumerate(words, 1):
        ns = NAMESPACES[0] if pid <= 8 else rng.choice(NAMESPACES[1:])
        created = base + timedelta(days=rng.randint(0, 700))
        conn.execute("INSERT INTO projects VALUES (?,?,?,?,?,?,?,?)",
                     (pid, ns, name, f"A {rng.choice(LANGUAGES)} project: {name.replace('-', ' ')}"
                      f" for {rng.choice(['teams', 'hobbyists', 'students', 'everyone'])}.",
                      rng.randint(0, 900), rng.randint(0, 120), rng.choice(LANGUAGES),
                      created.date().isoformat()))
        owner = 1 if ns == NAMESPACES[0] else rng.randint(2, n_users)
        conn.execute("INSERT INTO members VALUES (?,?, 'Owner')", (pid, owner))
        for uid in rng.sample([u for u in range(1, n_users + 1) if u != owner],
                              rng.randint(2, 6)):
            conn.execute("INSERT INTO members VALUES (?,?,?)", (pid, uid, rng.choice(ROLES)))
        plabels = []
        for lname, color in rng.sample(LABELS, rng.randint(3, len(LABELS))):
            label_id += 1
            plabels.append(label_id)
            conn.execute("INSERT INTO labels VALUES (?,?,?,?)", (label_id, pid, lname, color))
        titles: set[str] = set()
        for iid in range(1, rng.randint(8, 32)):
            while True:
                title = rng.choice(ISSUE_PATTERNS).format(x=rng.choice(TOPICS))
                if title not in titles:
                    break
            titles.add(title)
            issue_id += 1
            when = created + timedelta(days=rng.randint(1, 500))
            assignee = rng.choice([None, rng.randint(1, n_users)])
            conn.execute("INSERT INTO issues VALUES (?,?,?,?,?,?,?,?,?)",
                         (issue_id, pid, iid, title, f"Steps to reproduce: {title.lower()}.",
                          rng.choice(["opened", "opened", "closed"]), rng.randint(1, n_users),
                          assignee, when.date().isoformat()))
            for lab in rng.sample(plabels, rng.randint(0, 2)):
                conn.execute("INSERT INTO issue_labels VALUES (?,?)", (issue_id, lab))
            for _ in range(rng.randint(0, 3)):
                note_id += 1
                conn.execute("INSERT INTO notes VALUES (?,?,?,?,?)",
                             (note_id, issue_id, rng.randint(1, n_users),
                              rng.choice(["I can reproduce this.", "Fixed on my branch.",
                                          "Needs more info.", "+1"]),
                              (when + timedelta(days=1)).date().isoformat()))
        for mid in range(1, rng.randint(3, 12)):
            mr_id += 1
            topic = rng.choice(TOPICS)
            conn.execute("INSERT INTO merge_requests VALUES (?,?,?,?,?,?,?,?,?)",
                         (mr_id, pid, mid, f"{rng.choice(['Fix', 'Add', 'Update'])} {topic}",
                          f"feature/{topic.replace(' ', '-')}-{mid}", "main",
                          rng.choice(["opened", "merged", "merged", "closed"]),
                          rng.randint(1, n_users),
                          (created + timedelta(days=rng.randint(1, 500))).date().isoformat()))
    build_gitlab_activity(conn)
