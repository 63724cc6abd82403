"""Rendering CDP accessibility nodes as WebArena's tree, and pruning HTML."""

from __future__ import annotations

from agentgym.envs.web.observation import ElementIds, prune_html, render_ax_tree, render_tabs


def _node(node_id: str, role: str, name: str = "", children: tuple[str, ...] = (),
          backend: int | None = None, ignored: bool = False, **props: object) -> dict:
    node: dict = {"nodeId": node_id, "role": {"value": role}, "name": {"value": name},
                  "childIds": list(children), "ignored": ignored,
                  "properties": [{"name": k, "value": {"value": v}} for k, v in props.items()]}
    if backend is not None:
        node["backendDOMNodeId"] = backend
    return node


NODES = [
    _node("1", "RootWebArea", "Shop", ("2",), backend=1),
    _node("2", "generic", "", ("3", "4", "7", "9"), backend=2),
    _node("3", "button", "Buy", ("5",), backend=30, focused=True, focusable=True),
    _node("5", "StaticText", "Buy", ("6",), backend=31),
    _node("6", "InlineTextBox", "Buy", (), backend=None),
    _node("4", "none", "", ("8",), backend=40, ignored=True),
    _node("8", "link", "Home", (), backend=41),
    _node("7", "checkbox", "Agree", (), backend=50, checked="false"),
    _node("9", "textbox", "Search", (), backend=60),
]


def test_tree_lines_ids_and_pruning() -> None:
    tree = render_ax_tree(NODES)
    lines = tree.text.splitlines()
    assert lines[0] == "[1] RootWebArea 'Shop'"
    assert "\t[2] button 'Buy' focused: True" in lines
    assert "\t[3] link 'Home'" in lines            # the ignored parent's child moves up
    assert "\t[4] checkbox 'Agree' checked: false" in lines
    assert not any("generic" in ln or "InlineTextBox" in ln for ln in lines)
    assert not any("StaticText 'Buy'" in ln for ln in lines)  # repeats its parent's name
    assert "focusable" not in tree.text
    assert tree.ids == {1, 2, 3, 4, 5}                # numbered in tree order
    assert tree.backend == {1: 1, 2: 30, 3: 41, 4: 50, 5: 60}
    assert tree.nodes == len(NODES)


def test_viewport_filter_and_line_cap() -> None:
    bounds = {30: (10.0, 10.0, 50.0, 20.0), 41: (10.0, 900.0, 50.0, 20.0),
              50: (-100.0, 10.0, 50.0, 20.0), 60: (0.0, 0.0, 10.0, 10.0)}
    tree = render_ax_tree(NODES, bounds=bounds, viewport=(1280, 720))
    assert set(tree.backend.values()) == {1, 30, 60}
    assert "Home" not in tree.text and "Agree" not in tree.text
    capped = render_ax_tree(NODES, max_lines=2)
    assert capped.text.endswith("[tree cut at 2 lines]")


def test_element_ids_are_stable_per_document_and_restart_on_a_new_one() -> None:
    ids = ElementIds()
    ids.enter(("tab", 1))
    first = render_ax_tree(NODES, number=ids.number)
    assert first.backend == {1: 1, 2: 30, 3: 41, 4: 50, 5: 60}
    # the same document after a change: a new node above the button keeps the old ids fixed
    changed = [dict(NODES[0]), dict(NODES[1], childIds=["10", "3", "4", "7", "9"]),
               _node("10", "link", "New", (), backend=70), *NODES[2:]]
    second = render_ax_tree(changed, number=ids.number)
    assert second.backend == {1: 1, 6: 70, 2: 30, 3: 41, 4: 50, 5: 60}
    assert "\t[6] link 'New'" in second.text.splitlines()
    assert ids.backend(6) == 70 and ids.known(30) == 2 and ids.backend(7) is None
    ids.enter(("tab", 2))                              # another document starts at 1 again
    assert ids.backend(6) is None and ids.number(999) == 1
    ids.enter(("tab", 1))                              # and the first one is remembered
    assert ids.backend(6) == 70
    ids.clear()
    assert ids.backend(1) is None


def test_prune_html_and_tabs() -> None:
    html = ("<div class='x' style='color:red' onclick='evil()'><script>alert(1)</script>"
            "<!-- c --><a href='/p'>P</a><style>a{}</style></div>")
    assert prune_html(html) == "<div><a href='/p'>P</a></div>"
    assert render_tabs(["A", ""], 1) == "Tab 0: A\nTab 1 (current): (untitled)"
