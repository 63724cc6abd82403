"""Official WebArena-Lite templates of the code-hosting site, on the bundled data: commits and
contributors, my merge requests, to-dos and profile, issues assigned by title, members and their
access, public projects, clone URLs, stars and my latest issue (see :mod:`.twin_port_shape` for
the shape of a port)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import date
from typing import Any

from .sites.data_gitlab import GITLAB_USER
from .sites.gitlab_projects import ssh_clone_url
from .taskgen import (
    Candidate,
    click,
    fact,
    goto,
    html_check,
    query,
    stop,
    type_,
)
from .templates_gitlab import project_rows
from .twin_port_shape import Dbs, Port, adapt, port

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
    for p in project_rows(dbs["gitlab"]):
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
    for p in project_rows(dbs["gitlab"]):
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


def assign_by_title(dbs: Dbs) -> Iterator[Candidate]:
    """twin 311: assign an issue, named by its title, to a user (program_html)."""
    db = dbs["gitlab"]
    titles = {(r[0], r[1]): r[2] for r in db.execute(
        "SELECT p.namespace || '/' || p.name, i.iid, i.title FROM issues i JOIN projects p ON "
        "p.id = i.project_id")}
    yield from adapt(311, dbs, lambda s: {
        "issue": titles[(s["project"], int(s["iid"]))], "repo": s["project"],
        "account": s["user"]}, keep=("program_html",))


def invite_developer(dbs: Dbs) -> Iterator[Candidate]:
    """twin 307 (role Developer): invite a user as collaborator (program_html)."""
    yield from adapt(307, dbs, lambda s: {"collaborator_account_list": s["user"],
                                          "repo": s["project"]}
                     if s["role"] == "Developer" else None)


def add_with_role(dbs: Dbs) -> Iterator[Candidate]:
    """twin 307: add a user to a project with a role (program_html)."""
    yield from adapt(307, dbs, lambda s: {"repo": s["project"], "role": s["role"].lower(),
                                          "user_list": s["user"]})


def labelled(dbs: Dbs) -> Iterator[Candidate]:
    """twin 310: a project's issues with a label (url_match)."""
    yield from adapt(310, dbs, lambda s: {"label": s["label"], "repo": s["project"]})


def who_has_access(dbs: Dbs) -> Iterator[Candidate]:
    """the other members of one of my projects (string_match)."""
    db = dbs["gitlab"]
    for p in project_rows(db):
        names = [r[0] for r in db.execute(
            "SELECT u.username FROM members m JOIN users u ON u.id = m.user_id WHERE "
            "m.project_id = ? ORDER BY u.username", (p["id"],))]
        if GITLAB_USER[0] in names and len(names) > 1:
            others = [n for n in names if n != GITLAB_USER[0]]
            yield port({"repo": p["name"]}, G, [
                type_("Search", p["name"], enter=True), click(f"{p['namespace']} / {p['name']}"),
                click("Members", "link"), stop(", ".join(others))],
                answers={"must_include": others})


def public_projects(dbs: Dbs) -> Iterator[Candidate]:
    """the explore page (url_match)."""
    yield port({}, G, [click("Projects", "link"), stop()], url=f"{G}/explore")


def ssh_clone(dbs: Dbs) -> Iterator[Candidate]:
    """the SSH clone command of a project, from its page (string_match)."""
    for p in project_rows(dbs["gitlab"]):
        cmd = f"git clone {ssh_clone_url(p)}"
        yield port({"repo": p["name"]}, G, [
            type_("Search", p["name"], enter=True), click(f"{p['namespace']} / {p['name']}"),
            stop(cmd)], answers={"must_include": [ssh_clone_url(p)]})


def starred_contributions(dbs: Dbs) -> Iterator[Candidate]:
    """my projects (I am a member) with more or fewer stars than a bound (string_match)."""
    mine = [p for p in project_rows(dbs["gitlab"]) if dbs["gitlab"].execute(
        "SELECT 1 FROM members WHERE project_id = ? AND user_id = 1", (p["id"],)).fetchone()]
    for bound in (100, 250, 500, 800):
        for word, keep in (("more than", lambda s, b=bound: s > b),
                           ("less than", lambda s, b=bound: s < b)):
            names = [p["path"] for p in mine if keep(p["stars"])]
            if names and len(names) < len(mine):
                yield port({"description": f"{word} {bound}"}, G, [
                    goto(f"{G}/explore"), stop(", ".join(names))],
                    answers={"must_include": names})


def star_top(dbs: Dbs) -> Iterator[Candidate]:
    """star the n most starred projects (program_html on each project's star count)."""
    top = project_rows(dbs["gitlab"])
    top = sorted(top, key=lambda p: (-p["stars"], p["id"]))
    for n in (1, 2, 3, 4, 5):
        if top[n - 1]["stars"] == top[n]["stars"]:
            continue
        steps = []
        for p in top[:n]:
            steps += [goto(f"{G}/{p['path']}"), click("Star", "button")]
        yield port({"number": n}, G, [*steps, stop()], html=[
            html_check(f"{G}/{p['path']}", fact("Stars"), exact=str(p["stars"] + 1))
            for p in top[:n]])


def my_latest_issue(dbs: Dbs) -> Iterator[Candidate]:
    """my latest created issue with a keyword in its title: closed, Yes or No (string + url)."""
    db = dbs["gitlab"]
    mine = db.execute("SELECT i.*, p.namespace || '/' || p.name AS path FROM issues i JOIN "
                      "projects p ON p.id = i.project_id WHERE i.author_id = 1 ORDER BY "
                      "i.created DESC, i.id DESC").fetchall()
    words = sorted({w.strip(".,:").lower() for i in mine for w in i["title"].split()
                    if len(w) > 4})
    for w in words:
        hits = [i for i in mine if w in i["title"].lower()]
        if len(hits) >= 2 and hits[0]["created"] == hits[1]["created"]:
            continue
        i = hits[0]
        closed = "Yes" if i["state"] == "closed" else "No"  # "...to check if it is closed"
        url = f"{G}/{i['path']}/-/issues/{i['iid']}"
        yield port({"keyword": w}, G, [goto(url), stop(closed)],
                   answers={"exact_match": closed}, url=url)


PORTS_GITLAB: dict[int, Port] = {
    500: my_latest_issue, 289: starred_contributions, 354: star_top, 999: assign_by_title,
    293: invite_developer, 351: add_with_role, 349: labelled, 298: who_has_access,
    325: public_projects, 329: ssh_clone, 320: commits_on_day, 322: commits_to_repo,
    323: top_contributor, 324: top_three, 290: mrs_assigned, 291: mrs_to_review, 303: my_todos,
    312: feed_token, 331: set_website, 361: set_status,
}
"""Official template id -> port."""
