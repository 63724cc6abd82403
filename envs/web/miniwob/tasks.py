"""MiniWoB++ task names, the train/test split over instances, and the tasks known not to work.

An *instance* is one task page with one seed: the seed goes to the page's own ``Math.seedrandom``
before ``genProblem`` runs, so the same instance always shows the same problem. The split is over
seeds, the same for every task:

- ``test``: seeds 0-49 (50 instances per task; what ``agentgym eval`` runs by default);
- ``train``: seeds 1000-2999 (2,000 instances per task).

No seed is in both, and instance ids (``click-button-17``) name the seed, so a leak is visible.
"""

from __future__ import annotations

from functools import cache

from agentgym.tasks import Task, TaskSet

from .server import html_dir

TASK_NAMES = (
    "ascending-numbers", "bisect-angle", "book-flight", "book-flight-nodelay", "button-delay",
    "buy-ticket", "chase-circle", "choose-date", "choose-date-easy", "choose-date-medium",
    "choose-date-nodelay", "choose-list", "circle-center", "click-button",
    "click-button-sequence", "click-checkboxes", "click-checkboxes-large",
    "click-checkboxes-soft", "click-checkboxes-transfer", "click-collapsible",
    "click-collapsible-2", "click-collapsible-2-nodelay", "click-collapsible-nodelay",
    "click-color", "click-dialog", "click-dialog-2", "click-link", "click-menu", "click-menu-2",
    "click-option", "click-pie", "click-pie-nodelay", "click-scroll-list", "click-shades",
    "click-shape", "click-tab", "click-tab-2", "click-tab-2-easy", "click-tab-2-hard",
    "click-tab-2-medium", "click-test", "click-test-2", "click-test-transfer", "click-widget",
    "copy-paste", "copy-paste-2", "count-shape", "count-sides", "daily-calendar", "drag-box",
    "drag-circle", "drag-cube", "drag-items", "drag-items-grid", "drag-shapes", "drag-shapes-2",
    "drag-single-shape", "drag-sort-numbers", "draw-circle", "draw-line", "email-inbox",
    "email-inbox-delete", "email-inbox-forward", "email-inbox-forward-nl",
    "email-inbox-forward-nl-turk", "email-inbox-important", "email-inbox-nl-turk",
    "email-inbox-noscroll", "email-inbox-reply", "email-inbox-star-reply", "enter-date",
    "enter-password", "enter-text", "enter-text-2", "enter-text-dynamic", "enter-time",
    "find-greatest", "find-midpoint", "find-word", "focus-text", "focus-text-2",
    "form-sequence", "form-sequence-2", "form-sequence-3", "generate-number", "grid-coordinate",
    "guess-number", "highlight-text", "highlight-text-2", "hot-cold", "hover-shape",
    "identify-shape", "login-user", "login-user-popup", "moving-items", "multi-layouts",
    "multi-orderings", "navigate-tree", "number-checkboxes", "odd-or-even", "order-food",
    "phone-book", "read-table", "read-table-2", "resize-textarea", "right-angle", "scroll-text",
    "scroll-text-2", "search-engine", "sign-agreement", "simon-says", "simple-algebra",
    "simple-arithmetic", "social-media", "social-media-all", "social-media-some",
    "stock-market", "terminal", "text-editor", "text-transform", "tic-tac-toe", "unicode-test",
    "use-autocomplete", "use-autocomplete-nodelay", "use-colorwheel", "use-colorwheel-2",
    "use-slider", "use-slider-2", "use-spinner", "visual-addition",
)
"""Every MiniWoB++ page shipped in ``miniwob`` 1.1 (a test checks this against the package)."""

TEST_SEEDS = range(0, 50)
TRAIN_SEEDS = range(1000, 3000)

KNOWN_BROKEN: dict[str, str] = {
    "drag-box": "needs mouse drag, which the action space has no verb for",
    "drag-circle": "needs mouse drag",
    "drag-cube": "needs mouse drag",
    "drag-items": "needs mouse drag",
    "drag-items-grid": "needs mouse drag",
    "drag-shapes": "needs mouse drag",
    "drag-shapes-2": "needs mouse drag",
    "drag-single-shape": "needs mouse drag",
    "drag-sort-numbers": "needs mouse drag",
    "draw-circle": "needs mouse drag (drawing)",
    "draw-line": "needs mouse drag (drawing)",
    "highlight-text": "needs a text selection by dragging",
    "highlight-text-2": "needs a text selection by dragging",
    "resize-textarea": "needs mouse drag on the resize handle",
    "use-colorwheel": "needs mouse drag on a colour wheel",
    "use-colorwheel-2": "needs mouse drag on a colour wheel",
    "chase-circle": "moving target scored over time; a turn-based agent cannot follow it",
    "moving-items": "moving targets; state changes between observation and action",
}
"""Tasks registered but not solvable through this env, with the reason."""


def packaged_task_names() -> tuple[str, ...]:
    """Every MiniWoB++ page in the installed ``miniwob`` package (sorted)."""
    return tuple(sorted(p.stem for p in (html_dir() / "miniwob").glob("*.html")))


def instance_id(task: str, seed: int) -> str:
    """``click-button-17``: task name and seed."""
    return f"{task}-{seed}"


@cache
def load_tasks(task: str) -> TaskSet:
    """The instances of one task, in both splits."""
    tasks = [
        Task(instance_id(task, seed), split, f"MiniWoB++ {task} with seed {seed}",
             {"task": task, "seed": seed})
        for split, seeds in (("test", TEST_SEEDS), ("train", TRAIN_SEEDS))
        for seed in seeds
    ]
    return TaskSet(tasks, name=f"miniwob/{task}")


__all__ = [
    "KNOWN_BROKEN",
    "TASK_NAMES",
    "TEST_SEEDS",
    "TRAIN_SEEDS",
    "instance_id",
    "load_tasks",
    "packaged_task_names",
]
