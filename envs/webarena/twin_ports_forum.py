"""Official WebArena-Lite templates of the forum, on the bundled data: posting in the right
forum, replies, votes, my biography, subscriptions, and promoting a repository
(see :mod:`.twin_port_shape` for the shape of a port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .sites.data_forum import FORUM_USER
from .taskgen import (
    ROWS,
    Candidate,
    click,
    fact,
    goto,
    html_check,
    select,
    stop,
    type_,
)
from .templates_gitlab import project_rows
from .twin_port_shape import Dbs, Port, adapt, port

R = "__REDDIT__"

MAIN = "document.querySelector('main').innerText"
"""Locator: the text of the page's main region."""
BOOKS = ("The Silent Orchard", "A Map of Small Rivers", "Winter at Kestrel Bay",
         "The Lantern Keeper")
MEETUP_DATES = ("Oct 21st", "Nov 4th", "Dec 2nd")
SUBJECTS = {"books": ("audiobooks versus paper books", "Which novel should I read next?"),
            "movies": ("remakes of classic films", "What is a good movie for a rainy night?"),
            "gaming": ("co-op games for couples", "Which console has the best indie games?"),
            "science": ("the James Webb telescope", "Why is the sky blue at noon?"),
            "cooking": ("cast iron pans", "How do I keep bread from going stale?"),
            "travel": ("traveling with one backpack", "Is a rail pass worth it in Europe?"),
            "music": ("vinyl records", "Which headphones are good for jazz?"),
            "gardening": ("raised garden beds", "When should I plant tomatoes?"),
            "fitness": ("morning workouts", "How many rest days per week do I need?"),
            "technology": ("mechanical keyboards", "Which laptop is good for programming?"),
            "history": ("the Silk Road", "What caused the fall of Rome?"),
            "photography": ("film cameras", "Which lens is best for portraits?")}
"""Per forum: a subject and a question that belong there (the twin's stand-in of relevance)."""


def _my_votes(dbs: Dbs) -> set[int]:
    return {r[0] for r in dbs["reddit"].execute(
        "SELECT v.post_id FROM votes v JOIN users u ON u.id = v.user_id WHERE u.username = ?",
        (FORUM_USER[0],))}


def _vote_all(dbs: Dbs, button: str, delta: int) -> Iterator[Candidate]:
    db = dbs["reddit"]
    voted = _my_votes(dbs)
    groups: dict[tuple[str, str], list[Any]] = {}
    for p in db.execute("SELECT p.*, f.name AS forum, u.username FROM posts p JOIN forums f ON "
                        "f.id = p.forum_id JOIN users u ON u.id = p.user_id ORDER BY p.id"):
        groups.setdefault((p["username"], p["forum"]), []).append(p)
    for (user, forum), ps in sorted(groups.items()):
        if user != FORUM_USER[0] and not voted & {p["id"] for p in ps}:
            steps = []
            for p in ps:
                steps += [goto(f"{R}/f/{forum}/{p['id']}"), click(button, "button")]
            yield port({"user": user, "subreddit": forum}, R, [*steps, stop()], html=[
                html_check(f"{R}/f/{forum}/{p['id']}", fact("Score"),
                           exact=str(p["score"] + delta)) for p in ps])


def like_all(dbs: Dbs) -> Iterator[Candidate]:
    """upvote every post of a user in a forum (program_html on each score)."""
    yield from _vote_all(dbs, "Upvote", 1)


def dislike_all(dbs: Dbs) -> Iterator[Candidate]:
    """downvote every post of a user in a forum (program_html on each score)."""
    yield from _vote_all(dbs, "Downvote", -1)


def downvote_top(dbs: Dbs) -> Iterator[Candidate]:
    """downvote the top k posts of a forum (program_html on each score)."""
    db = dbs["reddit"]
    voted = _my_votes(dbs)
    for (forum,) in db.execute("SELECT name FROM forums ORDER BY id").fetchall():
        top = db.execute("SELECT p.* FROM posts p JOIN forums f ON f.id = p.forum_id WHERE "
                         "f.name = ? ORDER BY p.score DESC, p.id", (forum,)).fetchall()
        for k in (1, 2, 3):
            if len(top) > k and top[k - 1]["score"] != top[k]["score"] and \
                    not voted & {p["id"] for p in top[:k]}:
                steps = []
                for p in top[:k]:
                    steps += [goto(f"{R}/f/{forum}/{p['id']}"), click("Downvote", "button")]
                yield port({"subreddit": forum, "k": k}, R, [*steps, stop()], html=[
                    html_check(f"{R}/f/{forum}/{p['id']}", fact("Score"),
                               exact=str(p["score"] - 1)) for p in top[:k]])


def _forums(dbs: Dbs) -> list[str]:
    return [r[0] for r in dbs["reddit"].execute("SELECT name FROM forums ORDER BY id")]


def _post(forum: str, title: str, body: str, must: list[str]) -> dict[str, Any]:
    """Expert steps and checks of a new submission in ``forum`` (the page it lands on)."""
    return {"expert": [click("Submit", "link"), select("Forum", forum), type_("Title", title),
                       type_("Body", body), click("Create submission", "button"), stop()],
            "url": f"{R}/f/{forum}", "html": [html_check("last", MAIN, include=must)]}


def book_review(dbs: Dbs) -> Iterator[Candidate]:
    """a review post of a book, with my comment, in the books forum (url + program_html)."""
    if "books" not in _forums(dbs):
        return
    for book in BOOKS:
        for content in ("Loved the ending", "Slow start, great middle", "Not for me"):
            post = _post("books", book, content, [book, content])
            yield port({"book": book, "content": content}, R, post.pop("expert"), **post)


def recommendations(dbs: Dbs) -> Iterator[Candidate]:
    """a request for product recommendations in a named forum (url + program_html)."""
    for forum in _forums(dbs):
        for category, price in (("headphones", "$100"), ("a tent", "$200"), ("a camera", "$500")):
            title = f"Recommendations for {category} under {price}?"
            post = _post(forum, title, f"Looking for {category} within {price}.",
                         [category, price])
            yield port({"category": category, "price": price, "subreddit": forum}, R,
                       post.pop("expert"), **post)


def meetup(dbs: Dbs) -> Iterator[Candidate]:
    """a virtual meetup notice in a named forum (url + program_html)."""
    for forum in _forums(dbs):
        for date in MEETUP_DATES:
            title = f"Virtual meetup for {forum} enthusiasts on {date}"
            post = _post(forum, title, "Everyone is welcome.", [forum, date])
            yield port({"interest": forum, "date": date, "subreddit": forum}, R,
                       post.pop("expert"), **post)


def ml_post(dbs: Dbs) -> Iterator[Candidate]:
    """a post on what machine learning could do for a named forum's field (url + html)."""
    for forum in _forums(dbs):
        post = _post(forum, f"How could machine learning help {forum}?",
                     "Curious about your ideas.", ["machine learning"])
        yield port({"subreddit": forum}, R, post.pop("expert"), **post)


def _relevant(dbs: Dbs) -> list[tuple[str, str, str]]:
    return [(f, *SUBJECTS[f]) for f in _forums(dbs) if f in SUBJECTS]


def ask_in_topic(dbs: Dbs) -> Iterator[Candidate]:
    """my question posted in the forum of a topic (url + program_html)."""
    for forum, _subject, question in _relevant(dbs):
        post = _post(forum, question, "Thanks in advance!", [question])
        yield port({"topic": forum, "question": question}, R, post.pop("expert"), **post)


def discuss(dbs: Dbs) -> Iterator[Candidate]:
    """a discussion post on a subject in its forum, asking "your opinion" (url + html)."""
    for forum, subject, _question in _relevant(dbs):
        post = _post(forum, f"Discussion: {subject}", "your opinion", [subject, "your opinion"])
        yield port({"topic": subject}, R, post.pop("expert"), **post)


def ask_where_answered(dbs: Dbs) -> Iterator[Candidate]:
    """my question posted in the forum it belongs to (url + program_html)."""
    for forum, _subject, question in _relevant(dbs):
        post = _post(forum, question, "Any advice is welcome.", [question])
        yield port({"question": question}, R, post.pop("expert"), **post)


def most_commented_of_top(dbs: Dbs) -> Iterator[Candidate]:
    """among a forum's top n posts, the title of the most commented one (string_match)."""
    db = dbs["reddit"]
    for forum in _forums(dbs):
        rows = db.execute("SELECT p.title, (SELECT COUNT(*) FROM comments c WHERE c.post_id = "
                          "p.id) AS n FROM posts p JOIN forums f ON f.id = p.forum_id WHERE "
                          "f.name = ? ORDER BY p.score DESC, p.id", (forum,)).fetchall()
        for n in (3, 5, 10):
            top = sorted(rows[:n], key=lambda r: -r["n"])
            if len(top) >= 2 and top[0]["n"] > top[1]["n"]:
                yield port({"number": n, "subreddit": forum,
                            "description": "which one has the most comments? Tell me its title"},
                           R, [click("Forums", "link"), click(forum, "link"),
                               click("Sort by Top", "link"), stop(top[0]["title"])],
                           answers={"must_include": [top[0]["title"]]}, login=False)


def reply_newest(dbs: Dbs) -> Iterator[Candidate]:
    """a comment on the newest post of a forum (program_html on the post's comments)."""
    db = dbs["reddit"]
    for k, forum in enumerate(_forums(dbs)):
        p = db.execute("SELECT p.* FROM posts p JOIN forums f ON f.id = p.forum_id WHERE "
                       "f.name = ? ORDER BY p.created DESC, p.id DESC LIMIT 1", (forum,)).fetchone()
        if p is None:
            continue
        text = ("Count me in!", "Great write-up, thanks.", "I had the same experience.")[k % 3]
        url = f"{R}/f/{forum}/{p['id']}"
        yield port({"position_description": f"the newest post in the {forum} forum",
                    "content_description": text}, R, [
            goto(url), type_("Comment", text), click("Post comment", "button"), stop()],
            url=url, html=[html_check(url, ROWS, include=[text])])


def negative_comments(dbs: Dbs) -> Iterator[Candidate]:
    """how many comments of the author of a forum's latest post scored below zero, when some
    did (string_match; a score below zero stands for more downvotes than upvotes)."""
    db = dbs["reddit"]
    for forum in _forums(dbs):
        p = db.execute("SELECT p.user_id, u.username FROM posts p JOIN forums f ON f.id = "
                       "p.forum_id JOIN users u ON u.id = p.user_id WHERE f.name = ? ORDER BY "
                       "p.created DESC, p.id DESC LIMIT 1", (forum,)).fetchone()
        n = 0 if p is None else db.execute(
            "SELECT COUNT(*) FROM comments WHERE user_id = ? AND score < 0",
            (p["user_id"],)).fetchone()[0]
        if n:
            yield port({"forum": forum}, R, [goto(f"{R}/user/{p['username']}"), stop(str(n))],
                       answers={"must_include": [str(n)]}, login=False)


def bio(dbs: Dbs) -> Iterator[Candidate]:
    """twin 507: change my forum biography (program_html)."""
    yield from adapt(507, dbs, lambda s: {"content": s["bio"]})


def upvote_newest(dbs: Dbs) -> Iterator[Candidate]:
    """upvote the newest post of a forum (program_html on the post's score)."""
    db = dbs["reddit"]
    for f in db.execute("SELECT * FROM forums ORDER BY id").fetchall():
        p = db.execute("SELECT * FROM posts WHERE forum_id = ? ORDER BY created DESC, id DESC "
                       "LIMIT 1", (f["id"],)).fetchone()
        if p is None:
            continue
        url = f"{R}/f/{f['name']}/{p['id']}"
        yield port({"subreddit": f["name"]}, R, [
            click("Forums", "link"), click(f["name"], "link"), click("Sort by New", "link"),
            click(p["title"], "link"), click("Upvote", "button"), stop()],
            html=[html_check(url, fact("Score"), exact=str(p["score"] + 1))])


def subscribe_trending(dbs: Dbs) -> Iterator[Candidate]:
    """subscribe to a forum and open its hottest thread (url + program_html)."""
    db = dbs["reddit"]
    subscribed = {r[0] for r in db.execute(
        "SELECT f.name FROM subscriptions s JOIN forums f ON f.id = s.forum_id JOIN users u ON "
        "u.id = s.user_id WHERE u.username = ?", (FORUM_USER[0],))}
    for f in db.execute("SELECT * FROM forums ORDER BY id").fetchall():
        top = db.execute("SELECT * FROM posts WHERE forum_id = ? ORDER BY score DESC, id LIMIT 2",
                         (f["id"],)).fetchall()
        if f["name"] in subscribed or len(top) < 2 or top[0]["score"] == top[1]["score"]:
            continue
        yield port({"subreddit": f["name"]}, R, [
            click("Forums", "link"), click(f["name"], "link"), click("Subscribe", "button"),
            click(top[0]["title"], "link"), stop()], url=f"{R}/f/{f['name']}/{top[0]['id']}",
            html=[html_check(f"{R}/f/{f['name']}", fact("Subscription"), exact="Subscribed")])


def promote_repo(dbs: Dbs) -> Iterator[Candidate]:
    """a forum post promoting a project with the project's own description (url + html)."""
    forums = [r[0] for r in dbs["reddit"].execute("SELECT name FROM forums ORDER BY id")]
    for k, p in enumerate(project_rows(dbs["gitlab"])):
        forum = forums[k % len(forums)]
        yield port({"repo": p["path"], "subreddit": forum}, R, [
            click("Submit", "link"), select("Forum", forum), type_("Title", p["path"]),
            type_("Body", p["description"]), click("Create submission", "button"), stop()],
            url=f"{R}/f/{forum}", html=[html_check("last", MAIN, include=[p["description"]])])


PORTS_FORUM: dict[int, Port] = {
    4: subscribe_trending, 117: promote_repo, 6: bio, 22: upvote_newest, 5: ask_in_topic,
    13: discuss, 3765: ask_where_answered, 17: most_commented_of_top, 23: reply_newest,
    33: negative_comments, 25: like_all, 1510: dislike_all, 24: downvote_top, 9: book_review,
    15: recommendations, 16: meetup, 19: ml_post,
}
"""Official template id -> port."""
