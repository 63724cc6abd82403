"""The code-hosting site's project pages: the project list, a project and its star, members,
labels, commits and contributors, and a user's page; and the lookups every page of the site
starts from (the logged-in user, the project of the path, its URL). Writing needs the login."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    form_choice,
    form_text,
    query_choice,
    query_text,
    read_form,
    redirect,
    require_user,
)
from .data_gitlab import ROLES
from .gitlab_account import profile_facts
from .views import field, form, link, pager, pager_view, sort_links, table

PROJECT_SORTS = {"name": "Name", "stars": "Most stars", "created": "Last created"}
_PROJECT_ORDER = {"name": "namespace, name", "stars": "stars DESC, id",
                  "created": "created DESC, id"}
TODAY = "2024-01-01"
"""The site's today (new issues and comments are dated so)."""
SSH_HOST = "ssh://git@metis.lti.cs.cmu.edu:2222"
"""The SSH origin the project pages show in their clone URLs."""


def ssh_clone_url(project: Any) -> str:
    """``ssh://git@host:2222/namespace/name.git``."""
    return f"{SSH_HOST}/{project['namespace']}/{project['name']}.git"


def me(conn: Any, request: Request) -> int:
    """The logged-in user's id (the login page when nobody is logged in)."""
    user = require_user(request, "gitlab")
    return int(conn.execute("SELECT id FROM users WHERE username = ?", (user,)).fetchone()[0])


def project(conn: Any, request: Request) -> Any:
    """The project the path's ``{ns}/{proj}`` names (404 when none)."""
    p = conn.execute("SELECT * FROM projects WHERE namespace = ? AND name = ?",
                     (str(request.path_params["ns"]), str(request.path_params["proj"])))
    row = p.fetchone()
    if row is None:
        raise HTTPException(404, "project not found")
    return row


def base(p: Any) -> str:
    """The project's URL path (``/namespace/name``)."""
    return f"/{p['namespace']}/{p['name']}"


def project_pages(site: Site) -> Pages:
    """The project pages' endpoints by name."""

    async def explore(request: Request) -> Response:
        q = query_text(request, "q")
        sort = query_choice(request, "sort", tuple(PROJECT_SORTS))
        where, args = "(name LIKE ? OR description LIKE ?)", (f"%{q}%", f"%{q}%")
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM projects WHERE {where}", args).fetchone()[0]
            pg = pager(request, total)
            rows = conn.execute(f"SELECT * FROM projects WHERE {where} ORDER BY "
                                f"{_PROJECT_ORDER[sort]} LIMIT ? OFFSET ?",
                                (*args, pg.per_page, pg.offset)).fetchall()
        return site.render(request, "page.html", title="Explore projects", sections=[
            {"heading": "Sort", "links": sort_links(request, "sort", PROJECT_SORTS, sort)},
            {"heading": "Projects", "table": table(["Project", "Description", "Stars", "Language"],
                [[link(f"{r['namespace']} / {r['name']}", base(r)), r["description"], r["stars"],
                  r["language"]] for r in rows])}], pager=pager_view(request, pg))

    async def project_page(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            n_open = conn.execute("SELECT COUNT(*) FROM issues WHERE project_id = ? AND state = "
                                  "'opened'", (p["id"],)).fetchone()[0]
        b = base(p)
        return site.render(request, "page.html", title=f"{p['namespace']} / {p['name']}",
                           intro=p["description"], message=request.query_params.get("msg", "")[:80],
                           facts=[("Stars", p["stars"]), ("Forks", p["forks"]),
                                  ("Language", p["language"]), ("Created", p["created"]),
                                  ("Open issues", n_open),
                                  ("Clone with SSH", ssh_clone_url(p))], sections=[
            {"heading": "Project navigation", "links": [
                (f"{b}/-/issues", "Issues", False), (f"{b}/-/merge_requests", "Merge requests",
                                                     False),
                (f"{b}/-/project_members", "Members", False), (f"{b}/-/labels", "Labels", False),
                (f"{b}/-/commits", "Commits", False), (f"{b}/-/graphs/main", "Contributors",
                                                       False)]},
            {"heading": "Star", "forms": [form(f"{b}/star", "Star", [], id="star")]}])

    async def star(request: Request) -> Response:
        await read_form(request)
        with site.db(request) as conn:
            me(conn, request)
            p = project(conn, request)
            conn.execute("UPDATE projects SET stars = stars + 1 WHERE id = ?", (p["id"],))
        return redirect(f"{base(p)}?msg=You starred this project.")

    async def members(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            if request.method == "POST":
                me(conn, request)
                f = await read_form(request)
                users = tuple(r[0] for r in conn.execute("SELECT username FROM users"))
                name, role = form_choice(f, "username", users), form_choice(f, "role", tuple(ROLES))
                conn.execute("INSERT OR REPLACE INTO members SELECT ?, id, ? FROM users WHERE "
                             "username = ?", (p["id"], role, name))
                return redirect(f"{base(p)}/-/project_members")
            rows = conn.execute("SELECT u.username, u.name, m.role FROM members m JOIN users u ON"
                                " u.id = m.user_id WHERE project_id = ? ORDER BY u.username",
                                (p["id"],)).fetchall()
        return site.render(request, "page.html", title=f"Project members · {p['name']}", sections=[
            {"heading": "Members", "table": table(["Username", "Name", "Role"], [
                [link(r["username"], f"/users/{r['username']}"), r["name"], r["role"]]
                for r in rows])},
            {"heading": "Invite member", "forms": [form(f"{base(p)}/-/project_members", "Invite", [
                field("username", "Username"), field("role", "Role", "select", "Guest",
                                                     [(x, x) for x in ROLES])], id="invite")]}])

    async def labels(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            if request.method == "POST":
                me(conn, request)
                f = await read_form(request)
                name, color = form_text(f, "name", 50), form_text(f, "color", 7)
                if conn.execute("SELECT 1 FROM labels WHERE project_id = ? AND name = ?",
                                (p["id"], name)).fetchone():
                    raise HTTPException(409, "a label with this name exists")
                conn.execute("INSERT INTO labels (project_id, name, color) VALUES (?,?,?)",
                             (p["id"], name, color))
                return redirect(f"{base(p)}/-/labels")
            rows = conn.execute("SELECT l.*, (SELECT COUNT(*) FROM issue_labels il JOIN issues i "
                                "ON i.id = il.issue_id WHERE il.label_id = l.id AND i.state = "
                                "'opened') AS n FROM labels l WHERE project_id = ? ORDER BY name",
                                (p["id"],)).fetchall()
        return site.render(request, "page.html", title=f"Labels · {p['name']}", sections=[
            {"heading": "Labels", "table": table(["Label", "Color", "Open issues"], [
                [link(r["name"], f"{base(p)}/-/issues?label_name={r['name']}"), r["color"],
                 r["n"]] for r in rows])},
            {"heading": "New label", "forms": [form(f"{base(p)}/-/labels", "Create label", [
                field("name", "Title"), field("color", "Background color", value="#428bca")],
                id="label")]}])

    async def user_page(request: Request) -> Response:
        name = str(request.path_params["username"])
        with site.db(request) as conn:
            u = conn.execute("SELECT * FROM users WHERE username = ?", (name,)).fetchone()
            if u is None:
                raise HTTPException(404, "user not found")
            rows = conn.execute("SELECT p.*, m.role FROM members m JOIN projects p ON p.id = "
                                "m.project_id WHERE m.user_id = ? ORDER BY p.name",
                                (u["id"],)).fetchall()
        return site.render(request, "page.html", title=u["name"],
                           message=request.query_params.get("msg", "")[:80],
                           facts=[("Username", name), *profile_facts(u)],
                           sections=[{"heading": "Projects", "table": table(["Project", "Role"], [
                               [link(f"{r['namespace']} / {r['name']}", base(r)), r["role"]]
                               for r in rows])}])

    async def commits(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            rows = conn.execute("SELECT c.*, u.name, u.username FROM commits c JOIN users u ON "
                                "u.id = c.author_id WHERE project_id = ? ORDER BY c.created "
                                "DESC, c.id DESC", (p["id"],)).fetchall()
        return site.render(request, "page.html", title=f"Commits · {p['name']}",
                           intro=f"{len(rows)} commits", sections=[
            {"heading": "Commits", "table": table(["Commit", "Message", "Author", "Date"], [
                [r["sha"][:8], r["message"], r["name"], r["created"]] for r in rows])}])

    async def contributors(request: Request) -> Response:
        with site.db(request) as conn:
            p = project(conn, request)
            rows = conn.execute("SELECT u.name, u.username, COUNT(*) AS n FROM commits c JOIN "
                                "users u ON u.id = c.author_id WHERE project_id = ? GROUP BY "
                                "u.id ORDER BY n DESC, u.name", (p["id"],)).fetchall()
        return site.render(request, "page.html", title=f"Contributors · {p['name']}", sections=[
            {"heading": "Contributors", "table": table(["Name", "Username", "Commits"], [
                [r["name"], link(r["username"], f"/users/{r['username']}"), r["n"]]
                for r in rows])}])

    return {"explore": explore, "project_page": project_page, "star": star, "members": members,
            "labels": labels, "user_page": user_page, "commits": commits,
            "contributors": contributors}
