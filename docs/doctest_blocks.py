"""Doctest examples in docstrings shown as code on the API pages.

Many docstrings hold doctests as plain text (``>>> game.roles`` and its output), which the
tests run. Markdown would read them as prose: ``[:3]`` followed by a list looks like a
reference link, and the lines run together. This hook adds a Markdown preprocessor that
fences every run of ``>>>`` lines with the lines of output after it, outside fenced blocks.
"""

from __future__ import annotations

import re

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority

__all__ = ["DoctestBlocks", "fence_doctests", "on_config"]

FENCE = re.compile(r"^\s*(```|~~~)")
PROMPT = re.compile(r"^(\s*)>>> ")


def fence_doctests(lines: list[str]) -> list[str]:
    """The lines with each doctest (prompt lines and their output, up to a blank line)
    between code fences; lines already inside a fence are left alone."""
    out: list[str] = []
    inside_fence = False
    in_doctest = False
    indent = ""
    for line in lines:
        if in_doctest and not line.strip():
            out += [indent + "```", line]
            in_doctest = False
            continue
        if in_doctest:
            out.append(line)
            continue
        if FENCE.match(line):
            inside_fence = not inside_fence
        prompt = PROMPT.match(line)
        if prompt and not inside_fence:
            indent = prompt.group(1)
            out += ["", indent + "```pycon", line]
            in_doctest = True
            continue
        out.append(line)
    if in_doctest:
        out.append(indent + "```")
    return out


class _Fencer(Preprocessor):
    """The preprocessor: :func:`fence_doctests` over a page's lines."""

    def run(self, lines: list[str]) -> list[str]:
        return fence_doctests(lines)


class DoctestBlocks(Extension):
    """The Markdown extension that registers the preprocessor before fenced code."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_Fencer(md), "doctest_blocks", 30)


@event_priority(100)
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """MkDocs hook: add the extension to the site's Markdown, which mkdocstrings shares."""
    config.markdown_extensions.append(DoctestBlocks())  # type: ignore[arg-type]
    return config
