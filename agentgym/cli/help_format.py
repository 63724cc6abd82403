"""How ``--help`` looks: click's plain layout, filled to the terminal, grouped, never cut.

rich's help tables (typer's default) squeezed the help text into a narrow last column at 80
columns, cut long texts with an ellipsis and kept the docstrings' own line breaks, so
paragraphs broke mid-sentence. The app uses click's plain formatter instead
(``rich_markup_mode=None``) with three changes: every paragraph is refilled to the width
(80 columns at most), a word is never split (not at a hyphen: ``--allow-aborted`` stays whole),
and a command lists its arguments, then its options, then its advanced options (those declared
with ``rich_help_panel=ADVANCED``).
"""

from __future__ import annotations

import textwrap
from typing import Any

from typer.core import TyperCommand

ADVANCED = "Advanced options"
"""The help section of the options a first run does not need (``rich_help_panel=ADVANCED``)."""

_Context: Any = TyperCommand.context_class  # typer's own click: its Context and formatter
_Formatter: Any = _Context.formatter_class


def fill(text: str, width: int, indent: str = "") -> list[str]:
    """``text``'s paragraphs (blank-line separated) refilled to ``width``; words never split."""
    lines: list[str] = []
    for i, paragraph in enumerate(text.strip().split("\n\n")):
        if i:
            lines.append("")
        lines += textwrap.wrap(" ".join(paragraph.split()), max(width, 20), initial_indent=indent,
                               subsequent_indent=indent, break_on_hyphens=False,
                               break_long_words=False)
    return lines


def first_paragraph(text: str | None) -> str | None:
    """The first paragraph of a help text on one line: the command list shows it whole (click
    would cut a summary it makes itself at 45 characters)."""
    if not text:
        return None
    return " ".join(text.strip().split("\n\n", 1)[0].split())


class HelpFormatter(_Formatter):  # type: ignore[misc]
    """click's help formatter whose text and definition lists never split a word."""

    def write_text(self, text: str) -> None:
        """A description: each paragraph refilled to the width."""
        self.write("\n".join(fill(text, self.width, " " * self.current_indent)) + "\n")

    def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
        """Options or commands: the name, then its help filled in the column beside it."""
        rows = list(rows)
        if not rows:
            return
        first_col = min(max(len(first) for first, _ in rows), col_max) + col_spacing
        pad = " " * self.current_indent
        for first, second in rows:
            self.write(f"{pad}{first}")
            if not second:
                self.write("\n")
                continue
            if len(first) <= first_col - col_spacing:
                self.write(" " * (first_col - len(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            text_width = max(self.width - first_col - self.current_indent, 20)
            lines = fill(second, text_width)
            self.write(lines[0] + "\n")
            for line in lines[1:]:
                self.write((f"{pad}{'':>{first_col}}{line}" if line else "") + "\n")


class HelpContext(_Context):  # type: ignore[misc]
    """A click context whose help uses :class:`HelpFormatter`."""

    formatter_class = HelpFormatter


class GroupedHelpCommand(TyperCommand):
    """A command whose ``--help`` lists arguments, options, then the advanced options."""

    context_class = HelpContext

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """Arguments, options and advanced options (by ``rich_help_panel``), in that order."""
        sections: dict[str, list[tuple[str, str]]] = {"Arguments": [], "Options": [],
                                                      ADVANCED: []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                sections["Arguments"].append(record)
            else:
                panel = getattr(param, "rich_help_panel", None) or "Options"
                sections.setdefault(panel, []).append(record)
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


__all__ = ["ADVANCED", "GroupedHelpCommand", "HelpContext", "HelpFormatter", "fill",
           "first_paragraph"]
