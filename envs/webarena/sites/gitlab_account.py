"""The code-hosting site's personal pages: my merge requests (assigned to me, or waiting for
my review), my to-do list, and my profile (status, website, feed token). They need the login."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from .common import Pages, Site, form_text, query_text, read_form, redirect, require_user
from .views import field, form, link, table

MR_FILTERS = {"assignee_username": "Assigned to you", "reviewer_username": "Review requests "
              "for you"}
"""Query key of the merge request dashboard -> the link that sets it to my username."""


def account_pages(site: Site) -> Pages:
    """The personal pages' endpoints by name."""

    async def my_merge_requests(request: Request) -> Response:
        user = require_user(request, site.name)
        wanted = {k: query_text(request, k, max_len=100) for k in MR_FILTERS}
        where, args = ["1"], []
        for key, column in (("assignee_username", "a"), ("reviewer_username", "r")):
            if wanted[key]:
                where.append(f"{column}.username = ?")
                args.append(wanted[key])
        with site.db(request) as conn:
            rows = conn.execute(
                "SELECT m.*, p.namespace, p.name AS project, a.username AS assignee, "
                "r.username AS reviewer FROM merge_requests m JOIN projects p ON p.id = "
                "m.project_id LEFT JOIN users a ON a.id = m.assignee_id LEFT JOIN users r ON "
                f"r.id = m.reviewer_id WHERE {' AND '.join(where)} AND (m.assignee_id IS NOT "
                "NULL OR m.reviewer_id IS NOT NULL) AND m.state = 'opened' ORDER BY m.created "
                "DESC, m.id", args).fetchall()
        links = [(f"/dashboard/merge_requests?{k}={user}", label, wanted[k] == user)
                 for k, label in MR_FILTERS.items()]
        return site.render(request, "page.html", title="Merge requests", sections=[
            {"heading": "Filter", "links": links},
            {"heading": "Open merge requests", "table": table(
                ["Project", "Title", "Assignee", "Reviewer", "Created"],
                [[f"{r['namespace']} / {r['project']}", link(
                    r["title"], f"/{r['namespace']}/{r['project']}/-/merge_requests/{r['iid']}"),
                  r["assignee"] or "", r["reviewer"] or "", r["created"]] for r in rows])}])

    async def todos(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            rows = conn.execute(
                "SELECT t.*, p.namespace, p.name AS project, a.username AS author FROM todos t "
                "JOIN users u ON u.id = t.user_id JOIN projects p ON p.id = t.project_id JOIN "
                "users a ON a.id = t.author_id WHERE u.username = ? AND t.state = 'pending' "
                "ORDER BY t.created DESC, t.id", (user,)).fetchall()
        return site.render(request, "page.html", title="To-Do List", sections=[
            {"heading": "To Do", "table": table(["Author", "Action", "Kind", "Target",
                                                 "Project", "Date"], [
                [r["author"], r["action"], r["kind"], r["target"],
                 f"{r['namespace']} / {r['project']}", r["created"]] for r in rows])}])

    async def profile(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            if request.method == "POST":
                f = await read_form(request)
                status = form_text(f, "status", 100, required=False)
                website = form_text(f, "website", 200, required=False)
                conn.execute("UPDATE users SET status = ?, website = ? WHERE username = ?",
                             (status, website, user))
                return redirect(f"/users/{user}?msg=Profile was successfully updated.")
            u = conn.execute("SELECT * FROM users WHERE username = ?", (user,)).fetchone()
        return site.render(request, "page.html", title="Edit profile", sections=[
            {"heading": "Main settings", "forms": [form("/-/profile", "Update profile settings", [
                field("status", "Status message", value=u["status"]),
                field("website", "Website URL", value=u["website"])], id="profile")]},
            {"heading": "Access", "links": [("/-/profile/personal_access_tokens",
                                             "Access tokens", False)]}])

    async def tokens(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            token = conn.execute("SELECT feed_token FROM users WHERE username = ?",
                                 (user,)).fetchone()[0]
        return site.render(request, "page.html", title="Access tokens", facts=[
            ("Feed token", token)], intro="Your feed token authenticates you when your RSS "
                                          "reader loads a personalized RSS feed.")

    return {"my_merge_requests": my_merge_requests, "todos": todos, "profile": profile,
            "tokens": tokens}


def profile_facts(u: Any) -> list[tuple[str, str]]:
    """The user page's status and website facts (those set)."""
    return [(k, u[c]) for k, c in (("Status", "status"), ("Website", "website")) if u[c]]
