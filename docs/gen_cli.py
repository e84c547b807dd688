"""The command reference, generated from the argument parsers of ``gdl-reasoner``.

An MkDocs hook (``hooks:`` in ``mkdocs.yml``): at build time it walks the parser that
:func:`reasoner.cli.app.parser` builds, and adds one page per subcommand under
``reference/cli/`` with its usage line, its positional arguments and its options (flags,
argument, default, choices and help, as argparse knows them). The checked-in
``reference/cli/index.md`` gets the table of commands appended. Nothing here is written by
hand, so the pages cannot drift from the parsers.

Run as a script (``python docs/gen_cli.py [OUT]``) it writes the same pages into a folder,
to read them without building the site.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from reasoner.cli.app import parser as command_line

__all__ = ["Command", "commands", "index_table", "on_config", "on_files", "on_page_markdown",
           "page"]

# Where the generated pages live in the site, relative to docs/.
FOLDER = "reference/cli"
INDEX = f"{FOLDER}/index.md"
ROOT = Path(__file__).resolve().parent.parent
# The width of the usage lines.
WIDTH = 88


@dataclass(frozen=True)
class Command:
    """One subcommand: its name, its one-line help and its parser."""

    name: str
    summary: str
    parser: argparse.ArgumentParser

    @property
    def path(self) -> str:
        """The page's path relative to docs/."""
        return f"{FOLDER}/{self.name}.md"


def commands(top: argparse.ArgumentParser | None = None) -> list[Command]:
    """Every subcommand of the parser (``gdl-reasoner``'s by default), in ``--help`` order."""
    top = top if top is not None else command_line()
    found: list[Command] = []
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                found.append(Command(name, summaries.get(name, ""), sub))
    return found


def _text(value: str) -> str:
    """Help text as Markdown that renders it literally, fit for a table cell."""
    escaped = html.escape(" ".join(value.split()), quote=False)
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", escaped)


def _code(value: str) -> str:
    """A value as inline code, fit for a table cell."""
    value = " ".join(value.split()).replace("|", "\\|")
    fence = "``" if "`" in value else "`"
    pad = " " if "`" in value else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def _default(value: object) -> str:
    """A default as the reader would type it; paths inside the repository made relative."""
    if value is None or value is argparse.SUPPRESS or value is False:
        return ""
    text = str(value)
    root = str(ROOT) + "/"
    if text.startswith(root):
        text = text[len(root):]
    return _code(text)


def _help(sub: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The action's help with argparse's ``%(default)s`` and the like filled in."""
    if not action.help or action.help is argparse.SUPPRESS:
        return ""
    return _text(sub._get_formatter()._expand_help(action))


def _argument(action: argparse.Action) -> str:
    """What an option takes, as its usage shows it (empty for a flag)."""
    if action.nargs == 0:
        return ""
    if action.metavar is not None:
        metavar = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices is not None:
        metavar = "{" + ",".join(str(choice) for choice in action.choices) + "}"
    else:
        metavar = action.dest.upper()
    return _code(metavar)


def page(command: Command) -> str:
    """The Markdown page of one command: usage, positional arguments, options."""
    sub = command.parser
    # A fixed width, so that the page does not depend on the terminal that builds it.
    formatter = argparse.HelpFormatter(prog=sub.prog, width=WIDTH)
    formatter.add_usage(sub.usage, sub._actions, sub._mutually_exclusive_groups, prefix="")
    usage = formatter.format_help().strip()
    lines = [f"# gdl-reasoner {command.name}", ""]
    if command.summary:
        lines += [_text(command.summary[0].upper() + command.summary[1:]) + ".", ""]
    lines += ["```text", usage, "```", ""]
    positionals = [a for a in sub._actions if not a.option_strings]
    options = [a for a in sub._actions
               if a.option_strings and not isinstance(a, argparse._HelpAction)]
    if positionals:
        lines += ["## Arguments", "", "| argument | help |", "|---|---|"]
        for action in positionals:
            name = action.metavar if isinstance(action.metavar, str) else action.dest
            lines.append(f"| {_code(str(name))} | {_help(sub, action)} |")
        lines.append("")
    if options:
        lines += ["## Options", "", "| option | argument | default | help |", "|---|---|---|---|"]
        for action in options:
            flags = ", ".join(_code(flag) for flag in action.option_strings)
            lines.append(f"| {flags} | {_argument(action)} | {_default(action.default)} "
                         f"| {_help(sub, action)} |")
        lines.append("")
    lines += ["Generated from the argument parser (`reasoner.cli.app.parser`) when the site is "
              "built.", ""]
    return "\n".join(lines)


def index_table(found: list[Command]) -> str:
    """The table of commands that ends the reference's index page."""
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| [`{c.name}`]({c.name}.md) | {_text(c.summary)} |" for c in found]
    return "\n".join(rows) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """MkDocs hook: add a generated page for every command."""
    for command in commands():
        files.append(File.generated(config, command.path, content=page(command)))
    return files


def _add_to_nav(entries: object, found: list[Command]) -> bool:
    """Append the command pages to the nav list that holds the reference's index; whether
    it was found."""
    if isinstance(entries, list):
        if any(isinstance(e, dict) and INDEX in e.values() for e in entries):
            entries.extend({command.name: command.path} for command in found)
            return True
        return any(_add_to_nav(entry, found) for entry in entries)
    if isinstance(entries, dict):
        return any(_add_to_nav(value, found) for value in entries.values())
    return False


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """MkDocs hook: list a page per command in the navigation, after the reference's index
    (``nav`` in ``mkdocs.yml`` names the index in a section of its own)."""
    if config.nav is not None and not _add_to_nav(config.nav, commands()):
        raise ValueError(f"mkdocs.yml: no nav entry for {INDEX}")
    return config


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """MkDocs hook: end the command reference's index with the table of commands."""
    if page.file.src_uri == INDEX:
        return markdown.rstrip("\n") + "\n\n" + index_table(commands())
    return markdown


def main(argv: list[str]) -> int:
    """Write every command's page into the folder named by the first argument."""
    out = Path(argv[0] if argv else "site-cli")
    out.mkdir(parents=True, exist_ok=True)
    found = commands()
    for command in found:
        (out / f"{command.name}.md").write_text(page(command), encoding="utf-8")
    (out / "index.md").write_text(index_table(found), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
