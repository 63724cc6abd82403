"""The twin's own task templates of the code-hosting site: issues (open counts, assignees,
new issues, comments, closing, labels), merge requests' source branches and members.

The row helpers (:func:`project_rows`) are public: :mod:`.twin_ports` reuse them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from .taskgen import (
    ROWS,
    Candidate,
    Template,
    click,
    fact,
    goto,
    html_check,
    query,
    record,
    select,
    stop,
    type_,
)

G = "__GITLAB__"
Dbs = dict[str, sqlite3.Connection]
ISSUE_TITLES = ["Broken link in README", "Add a dark theme", "Crash on empty input",
                "Update dependencies", "Write a contributing guide", "Support Windows paths"]
LABEL_NAMES = ["needs-review", "blocked", "good first issue", "security", "wontfix"]
COMMENTS = ["Thanks, this helped a lot!", "I see the same problem here.",
            "Could you share the steps?", "Great point, well said."]


def project_rows(db: sqlite3.Connection) -> list[Any]:
    """Every project, with its ``path`` (``namespace/name``) and ``n_open`` (open issues)."""
    return db.execute("SELECT *, namespace || '/' || name AS path, (SELECT COUNT(*) FROM issues "
                      "i WHERE i.project_id = projects.id AND i.state = 'opened') AS n_open FROM "
                      "projects ORDER BY id").fetchall()


def _project(p: Any) -> list[dict[str, Any]]:
    return [type_("Search", p["name"], enter=True), click(f"{p['namespace']} / {p['name']}")]


def _issues(db: sqlite3.Connection, where: str = "1") -> list[Any]:
    return db.execute("SELECT i.*, p.namespace || '/' || p.name AS path, u.username AS assignee "
                      "FROM issues i JOIN projects p ON p.id = i.project_id LEFT JOIN users u ON "
                      f"u.id = i.assignee_id WHERE {where} ORDER BY i.id").fetchall()


def open_issues(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Number of open issues of a project."""
    for p in project_rows(dbs["gitlab"]):
        yield record(t, {"project": p["path"]}, G, [*_project(p), stop(str(p["n_open"]))],
                     answers={"must_include": [str(p["n_open"])]})


def assignee(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Who an issue is assigned to."""
    for i in _issues(dbs["gitlab"], "i.assignee_id IS NOT NULL"):
        yield record(t, {"iid": i["iid"], "project": i["path"]}, G, [
            goto(f"{G}/{i['path']}/-/issues/{i['iid']}"), stop(i["assignee"])],
            answers={"fuzzy_match": [i["assignee"]]})


def source_branch(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Source branch of a merge request."""
    for m in dbs["gitlab"].execute("SELECT m.*, p.namespace || '/' || p.name AS path FROM "
                                   "merge_requests m JOIN projects p ON p.id = m.project_id "
                                   "ORDER BY m.id"):
        yield record(t, {"iid": m["iid"], "project": m["path"]}, G, [
            goto(f"{G}/{m['path']}/-/merge_requests?state=all"), click(m["title"], "link"),
            stop(m["source_branch"])], answers={"must_include": [m["source_branch"]]})


def new_issue(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Create an issue."""
    for p in project_rows(dbs["gitlab"]):
        for title in ISSUE_TITLES:
            yield record(t, {"project": p["path"], "title": title}, G, [
                *_project(p), click("Issues", "link"), click("New issue", "link"),
                type_("Title", title), click("Create issue", "button"), stop()],
                html=[html_check(query(f"{G}/{p['path']}/-/issues", search=title), ROWS,
                                 include=[title])])


def comment_issue(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Comment on an issue."""
    for k, i in enumerate(_issues(dbs["gitlab"])):
        text = COMMENTS[k % len(COMMENTS)]
        url = f"{G}/{i['path']}/-/issues/{i['iid']}"
        yield record(t, {"comment": text, "iid": i["iid"], "project": i["path"]}, G, [
            goto(url), type_("Add a comment", text), click("Comment", "button"), stop()],
            html=[html_check(url, ROWS, include=[text])])


def close_issue(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Close an open issue."""
    for i in _issues(dbs["gitlab"], "i.state = 'opened'"):
        url = f"{G}/{i['path']}/-/issues/{i['iid']}"
        yield record(t, {"iid": i["iid"], "project": i["path"]}, G, [
            goto(url), click("Close issue", "button"), stop()],
            html=[html_check(url, fact("Status"), exact="Closed")])


def add_member(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Invite a user to a project with a role."""
    db = dbs["gitlab"]
    users = db.execute("SELECT * FROM users ORDER BY id").fetchall()
    for p in project_rows(db):
        members = {r[0] for r in db.execute("SELECT user_id FROM members WHERE project_id = ?",
                                            (p["id"],))}
        for k, u in enumerate(u for u in users if u["id"] not in members):
            role = ("Developer", "Reporter", "Maintainer", "Guest")[(k + p["id"]) % 4]
            if k >= 3:
                break
            yield record(t, {"user": u["username"], "project": p["path"], "role": role}, G, [
                *_project(p), click("Members", "link"), type_("Username", u["username"]),
                select("Role", role), click("Invite", "button"), stop()],
                html=[html_check(f"{G}/{p['path']}/-/project_members", ROWS,
                                 include=[f"{u['username']} | {u['name']} | {role}"])])


def new_label(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Create a label."""
    for p in project_rows(dbs["gitlab"]):
        for name in LABEL_NAMES:
            yield record(t, {"label": name, "project": p["path"]}, G, [
                *_project(p), click("Labels", "link"), type_("Title", name),
                click("Create label", "button"), stop()],
                html=[html_check(f"{G}/{p['path']}/-/labels", ROWS, include=[name])])


def closed_issues(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Show a project's closed issues."""
    for p in project_rows(dbs["gitlab"]):
        yield record(t, {"project": p["path"]}, G, [
            *_project(p), click("Issues", "link"), click("Closed", "link"), stop()],
            url=query(f"{G}/{p['path']}/-/issues", state="closed"))


def label_filter(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Show a project's open issues with a label."""
    db = dbs["gitlab"]
    for p in project_rows(db):
        for (name,) in db.execute("SELECT name FROM labels WHERE project_id = ? ORDER BY name",
                                  (p["id"],)):
            yield record(t, {"label": name, "project": p["path"]}, G, [
                *_project(p), click("Labels", "link"), click(name, "link"), stop()],
                url=query(f"{G}/{p['path']}/-/issues", label_name=name))


def assign(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Assign an issue to someone else."""
    db = dbs["gitlab"]
    users = [r[0] for r in db.execute("SELECT username FROM users ORDER BY id")]
    for k, i in enumerate(_issues(db)):
        user = users[(k * 7) % len(users)]
        if user == i["assignee"]:
            continue
        url = f"{G}/{i['path']}/-/issues/{i['iid']}"
        yield record(t, {"iid": i["iid"], "project": i["path"], "user": user}, G, [
            goto(url), select("Assignee", user), click("Assign", "button"), stop()], url=url,
            html=[html_check(url, fact("Assignee"), exact=user)])


GITLAB_TEMPLATES = [
    Template(301, ("gitlab",), "How many open issues does the project {project} have?", 4,
             open_issues),
    Template(302, ("gitlab",), "Who is assigned to issue #{iid} of {project}?", 4, assignee),
    Template(303, ("gitlab",), "What is the source branch of merge request !{iid} in {project}?",
             3, source_branch),
    Template(304, ("gitlab",), "Create an issue in {project} titled '{title}'.", 4, new_issue),
    Template(305, ("gitlab",), "Comment '{comment}' on issue #{iid} of {project}.", 3,
             comment_issue),
    Template(306, ("gitlab",), "Close issue #{iid} of {project}.", 3, close_issue),
    Template(307, ("gitlab",), "Add {user} to the project {project} as {role}.", 2, add_member),
    Template(308, ("gitlab",), "Create a label '{label}' in the project {project}.", 1,
             new_label),
    Template(309, ("gitlab",), "Show me the closed issues of {project}.", 1, closed_issues),
    Template(310, ("gitlab",), "Show me the open issues labelled '{label}' in {project}.", 1,
             label_filter),
    Template(311, ("gitlab",), "Assign issue #{iid} of {project} to {user}.", 4, assign),
]
"""Code hosting templates (30 test tasks); the map's are in :mod:`.templates_map`, the
forum and multi-site ones in :mod:`.templates_forum`, the store's in :mod:`.templates_shop`."""
