"""Official WebArena-Lite GitLab templates on the bundled site's commits, contributors, my merge
requests and to-dos, and my profile (see :mod:`.twin_ports_shop` for the shape of a port)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import date
from typing import Any

from .sites.data_gitlab import GITLAB_USER
from .taskgen import Candidate, click, fact, goto, html_check, query, stop, type_
from .templates_more import _projects
from .twin_ports_shop import Dbs, Port, port

G = "__GITLAB__"
ME = GITLAB_USER[0]
WEBSITES = ["https://egg.tart.com", "https://byteblaze.dev", "https://blog.byteblaze.io",
            "https://www.pixel-garden.net", "https://notes.example.org"]
STATUSES = ["Enjoying life", "Busy", "On vacation", "Working from home", "Out sick",
            "Focusing on deep work"]


def _us_date(iso: str) -> str:
    """``2023-03-05`` -> ``3/5/2023`` (the templates' date form)."""
    d = date.fromisoformat(iso)
    return f"{d.month}/{d.day}/{d.year}"


def _commits(dbs: Dbs) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = {}
    for r in dbs["gitlab"].execute("SELECT c.*, u.name, u.username FROM commits c JOIN users u ON "
                                   "u.id = c.author_id ORDER BY c.project_id, c.id"):
        out.setdefault(r["project_id"], []).append(r)
    return out


def _per_day(dbs: Dbs) -> Iterator[tuple[Any, str, str, int]]:
    """``(project, author name, day, commits)`` for every author's busy day of every project."""
    commits = _commits(dbs)
    for p in _projects(dbs["gitlab"]):
        counts = Counter((c["name"], c["created"]) for c in commits.get(p["id"], []))
        for (name, day), n in sorted(counts.items()):
            yield p, name, day, n


def commits_on_day(dbs: Dbs) -> Iterator[Candidate]:
    """how many commits a person made to the open project on a day (string_match)."""
    for p, name, day, n in _per_day(dbs):
        yield port({"user": name, "date": _us_date(day)}, f"{G}/{p['path']}", [
            click("Commits", "link"), stop(str(n))], answers={"must_include": [str(n)]})


def commits_to_repo(dbs: Dbs) -> Iterator[Candidate]:
    """how many commits a person made to a named project on a day (string_match)."""
    for p, name, day, n in list(_per_day(dbs))[::-1]:
        yield port({"user": name, "repo": p["name"], "date": _us_date(day)}, G, [
            goto(f"{G}/{p['path']}"), click("Commits", "link"), stop(str(n))],
            answers={"must_include": [str(n)]})


def _ranked(dbs: Dbs) -> Iterator[tuple[Any, list[tuple[Any, int]]]]:
    """``(project, [(author row, commits)] most first)`` of every project with commits."""
    commits = _commits(dbs)
    for p in _projects(dbs["gitlab"]):
        counts = Counter(c["username"] for c in commits.get(p["id"], []))
        people = {c["username"]: c for c in commits.get(p["id"], [])}
        ranked = sorted(((people[u], n) for u, n in counts.items()),
                        key=lambda t: (-t[1], t[0]["name"]))
        if ranked:
            yield p, ranked


def top_contributor(dbs: Dbs) -> Iterator[Candidate]:
    """who made the most commits to a project, when one person did (string_match)."""
    for p, ranked in _ranked(dbs):
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            continue
        name = ranked[0][0]["name"]
        yield port({"repo": p["name"]}, G, [
            goto(f"{G}/{p['path']}"), click("Contributors", "link"), stop(name)],
            answers={"must_include": [name]})


def top_three(dbs: Dbs) -> Iterator[Candidate]:
    """an attribute of a project's three top contributors by commits, when three are (string)."""
    attributes = {"names": lambda u: u["name"], "last names": lambda u: u["name"].split()[-1],
                  "usernames": lambda u: u["username"]}
    for p, ranked in _ranked(dbs):
        if len(ranked) < 3 or (len(ranked) > 3 and ranked[2][1] == ranked[3][1]):
            continue
        for attribute, get in attributes.items():
            values = [get(u) for u, _n in ranked[:3]]
            yield port({"attribute": attribute, "repo": p["name"]}, G, [
                goto(f"{G}/{p['path']}"), click("Contributors", "link"),
                stop(", ".join(values))], answers={"must_include": values})


def mrs_assigned(dbs: Dbs) -> Iterator[Candidate]:
    """my merge requests dashboard, those assigned to me (url_match)."""
    yield port({}, G, [click("Your merge requests", "link"), click("Assigned to you", "link"),
                       stop()],
               url=query(f"{G}/dashboard/merge_requests", assignee_username=ME))


def mrs_to_review(dbs: Dbs) -> Iterator[Candidate]:
    """my merge requests dashboard, those waiting for my review (url_match)."""
    yield port({}, G, [click("Your merge requests", "link"),
                       click("Review requests for you", "link"), stop()],
               url=query(f"{G}/dashboard/merge_requests", reviewer_username=ME))


def my_todos(dbs: Dbs) -> Iterator[Candidate]:
    """my to-do list (url_match)."""
    yield port({}, G, [click("To-Do List", "link"), stop()], url=f"{G}/dashboard/todos")


def feed_token(dbs: Dbs) -> Iterator[Candidate]:
    """my feed token, on the access tokens page (string_match)."""
    token = dbs["gitlab"].execute("SELECT feed_token FROM users WHERE username = ?",
                                  (ME,)).fetchone()[0]
    yield port({}, G, [click("Edit profile", "link"), click("Access tokens", "link"),
                       stop(token)], answers={"must_include": [token]})


def _profile(field: str, value: str, label: str) -> Candidate:
    return port({field: value}, G, [
        click("Edit profile", "link"), type_(label, value),
        click("Update profile settings", "button"), stop()],
        html=[html_check(f"{G}/users/{ME}", fact("Website" if field == "url" else "Status"),
                         exact=value)])


def set_website(dbs: Dbs) -> Iterator[Candidate]:
    """the website URL on my profile (program_html on my user page)."""
    for url in WEBSITES:
        yield _profile("url", url, "Website URL")


def set_status(dbs: Dbs) -> Iterator[Candidate]:
    """my status message (program_html on my user page)."""
    for status in STATUSES:
        yield _profile("status", status, "Status message")


PORTS_GITLAB: dict[int, Port] = {
    320: commits_on_day, 322: commits_to_repo, 323: top_contributor, 324: top_three,
    290: mrs_assigned, 291: mrs_to_review, 303: my_todos, 312: feed_token, 331: set_website,
    361: set_status,
}
"""Official template id -> port."""
