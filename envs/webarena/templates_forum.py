"""Task templates of the forum, and the multi-site tasks (map+wiki, gitlab+forum, shop+forum,
admin+map)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from .sites.data_forum import FORUM_USER
from .sites.data_map import CATEGORIES
from .sites.data_places import FIRST_REAL_PLACE
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

R, G, S, A, M, W = ("__REDDIT__", "__GITLAB__", "__SHOPPING__", "__SHOPPING_ADMIN__", "__MAP__",
                    "__WIKIPEDIA__")
Dbs = dict[str, sqlite3.Connection]
REPLIES = ["Thanks for sharing this!", "I completely agree with you.",
           "This is a great question.", "Following this thread."]
NEW_TITLES = ["Weekly discussion thread", "Share your setup", "Beginner questions welcome",
              "What are you working on this month?"]
BIOS = ["Coffee lover and weekend hiker.", "I read two books a week.",
        "Amateur astronomer from the coast.", "Gardener, cook and cat person."]


def _posts(db: sqlite3.Connection) -> list[Any]:
    return db.execute("SELECT p.*, f.name AS forum, u.username, (SELECT COUNT(*) FROM comments c"
                      " WHERE c.post_id = p.id) AS n FROM posts p JOIN forums f ON f.id = "
                      "p.forum_id JOIN users u ON u.id = p.user_id ORDER BY p.id").fetchall()


def _unique_posts(db: sqlite3.Connection) -> list[Any]:
    posts = _posts(db)
    titles = [p["title"] for p in posts]
    return [p for p in posts if sum(t.lower().find(p["title"].lower()) >= 0 for t in titles) == 1]


def _open_post(p: Any) -> list[dict[str, Any]]:
    return [type_("Search", p["title"], enter=True), click(p["title"], "link")]


def top_post(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """The k-th highest scored post of a forum."""
    db = dbs["reddit"]
    for (forum,) in db.execute("SELECT name FROM forums ORDER BY id").fetchall():
        rows = db.execute("SELECT p.title, p.score FROM posts p JOIN forums f ON f.id = "
                          "p.forum_id WHERE f.name = ? ORDER BY p.score DESC, p.id",
                          (forum,)).fetchall()
        for k, word in enumerate(("most upvoted", "second most upvoted", "third most upvoted")):
            scores = [r[1] for r in rows]
            if scores.count(scores[k]) > 1:
                continue
            yield record(t, {"rank": word, "forum": forum}, R, [
                click("Forums", "link"), click(forum, "link"), click("Sort by Top", "link"),
                stop(rows[k][0])], answers={"fuzzy_match": [rows[k][0]]}, login=False)


def comment_count(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Number of comments of a post."""
    for p in _unique_posts(dbs["reddit"]):
        yield record(t, {"title": p["title"]}, R, [*_open_post(p), stop(str(p["n"]))],
                     answers={"must_include": [str(p["n"])]}, login=False)


def reply(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Comment on a post."""
    for k, p in enumerate(_unique_posts(dbs["reddit"])):
        text = REPLIES[k % len(REPLIES)]
        yield record(t, {"title": p["title"], "comment": text}, R, [
            *_open_post(p), type_("Comment", text), click("Post comment", "button"), stop()],
            html=[html_check(f"{R}/f/{p['forum']}/{p['id']}", ROWS, include=[text])])


def new_post(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Submit a post to a forum."""
    for (forum,) in dbs["reddit"].execute("SELECT name FROM forums ORDER BY id").fetchall():
        for title in NEW_TITLES:
            yield record(t, {"forum": forum, "title": title}, R, [
                click("Submit", "link"), select("Forum", forum), type_("Title", title),
                click("Create submission", "button"), stop()],
                html=[html_check(query(f"{R}/f/{forum}", sort="new"), ROWS, include=[title])])


def upvote(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Upvote a post."""
    for p in _unique_posts(dbs["reddit"])[::-1]:
        url = f"{R}/f/{p['forum']}/{p['id']}"
        yield record(t, {"title": p["title"]}, R, [*_open_post(p), click("Upvote", "button"),
                                                   stop()], url=url,
                     html=[html_check(url, fact("Score"), exact=str(p["score"] + 1))])


def newest(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Show a forum's newest posts."""
    for (forum,) in dbs["reddit"].execute("SELECT name FROM forums ORDER BY id").fetchall():
        yield record(t, {"forum": forum}, R, [click("Forums", "link"), click(forum, "link"),
                                              click("Sort by New", "link"), stop()],
                     url=query(f"{R}/f/{forum}", sort="new"), login=False)


def biography(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Change my biography."""
    for bio in BIOS:
        for suffix in ("", " Say hi!", " Ask me anything.", " New here."):
            text = bio + suffix
            yield record(t, {"bio": text}, R, [
                click("Profile", "link"), type_("Biography", text), click("Save", "button"),
                stop()], html=[html_check(f"{R}/user/{FORUM_USER[0]}", fact("Biography"),
                                          exact=text)])


def author(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Who submitted a post."""
    for p in _unique_posts(dbs["reddit"])[1::2]:
        yield record(t, {"title": p["title"]}, R, [*_open_post(p), stop(p["username"])],
                     answers={"fuzzy_match": [p["username"]]}, login=False)


# -- multi-site ----------------------------------------------------------------------------------


def population(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Population (wiki) of the city a place (map) lies in."""
    wiki = {r["title"]: r["infobox"] for r in dbs["wikipedia"].execute("SELECT * FROM articles")}
    for p in dbs["map"].execute("SELECT p.name, c.name AS city FROM places p JOIN cities c ON "
                                "c.id = p.city_id WHERE p.id < ? ORDER BY p.id",
                                (FIRST_REAL_PLACE,)):
        pop = dict(line.split("=", 1) for line in wiki[p["city"]].splitlines())["Population"]
        yield record(t, {"place": p["name"]}, M, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"),
            goto(f"{W}/wiki/{p['city'].replace(' ', '_')}"), stop(pop)],
            answers={"fuzzy_match": [pop]}, login=False)


def issues_post(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Post a project's open issue count (gitlab) to the forum."""
    for p in dbs["gitlab"].execute("SELECT namespace || '/' || name AS path, (SELECT COUNT(*) "
                                   "FROM issues i WHERE i.project_id = projects.id AND i.state = "
                                   "'opened') AS n FROM projects ORDER BY id"):
        title = f"{p['path']} open issues: {p['n']}"
        yield record(t, {"project": p["path"]}, G, [
            goto(f"{G}/{p['path']}"), goto(f"{R}/submit"), select("Forum", "technology"),
            type_("Title", title), click("Create submission", "button"), stop()],
            html=[html_check(query(f"{R}/f/technology", sort="new"), ROWS, include=[title])])


def price_post(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Post a product's price (shop) to the forum."""
    for p in dbs["shopping"].execute("SELECT name, price FROM products WHERE status = 'enabled' "
                                     "ORDER BY id DESC"):
        title = f"{p['name']}: ${p['price']:.2f}"
        yield record(t, {"product": p["name"]}, S, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"),
            goto(f"{R}/submit"), select("Forum", "technology"), type_("Title", title),
            click("Create submission", "button"), stop()],
            html=[html_check(query(f"{R}/f/technology", sort="new"), ROWS, include=[title])])


def places_in_city(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Number of places of a kind (map) in a customer's city (admin)."""
    admin, mdb = dbs["shopping_admin"], dbs["map"]
    names: dict[str, int] = {}
    rows = admin.execute("SELECT first_name || ' ' || last_name AS name, city FROM customers "
                         "ORDER BY id").fetchall()
    for r in rows:
        names[r["name"]] = names.get(r["name"], 0) + 1
    for k, c in enumerate(r for r in rows if names[r["name"]] == 1):
        cat = list(CATEGORIES)[k % len(CATEGORIES)]
        n = mdb.execute("SELECT COUNT(*) FROM places p JOIN cities c ON c.id = p.city_id WHERE "
                        "p.category = ? AND (p.name LIKE ? OR p.category LIKE ? OR c.name LIKE ? "
                        "OR p.address LIKE ?)", (cat, *(f"%{c['city']}%",) * 4)).fetchone()[0]
        yield record(t, {"category": cat, "customer": c["name"]}, A, [
            click("Customers", "link"), type_("Name, email or city", c["name"], enter=True),
            click(c["name"], "link"), goto(query(f"{M}/search", q=c["city"], category=cat)),
            stop(str(n))], answers={"must_include": [str(n)]})


FORUM_TEMPLATES = [
    Template(501, ("reddit",), "What is the title of the {rank} post in /f/{forum}?", 3,
             top_post),
    Template(502, ("reddit",), "How many comments does the post '{title}' have?", 3,
             comment_count),
    Template(503, ("reddit",), "Reply to the post '{title}' with the comment '{comment}'.", 3,
             reply),
    Template(504, ("reddit",), "Create a post in /f/{forum} titled '{title}'.", 2, new_post),
    Template(505, ("reddit",), "Upvote the post '{title}'.", 3, upvote),
    Template(506, ("reddit",), "Show me the newest posts in /f/{forum}.", 1, newest),
    Template(507, ("reddit",), "Change my forum biography to '{bio}'.", 2, biography),
    Template(508, ("reddit",), "Who submitted the post '{title}'?", 2, author),
]
MULTI_TEMPLATES = [
    Template(601, ("map", "wikipedia"), "What is the population of the city where {place} is "
             "located?", 4, population),
    Template(602, ("gitlab", "reddit"), "Post in /f/technology a submission titled "
             "'{project} open issues: N', where N is the number of open issues of the GitLab "
             "project {project}.", 4, issues_post),
    Template(603, ("shopping", "reddit"), "Post in /f/technology a submission titled "
             "'{product}: $PRICE', where PRICE is the product's price in the shop, like "
             "'Name: $12.50'.", 1, price_post),
    Template(604, ("shopping_admin", "map"), "How many places of type {category} does the map "
             "list in the city where customer {customer} lives?", 1, places_in_city),
]
"""Forum (19 test tasks) and multi-site (10) templates."""
