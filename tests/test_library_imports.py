"""The library (every module of ``reasoner`` outside the command line's packages
``reasoner.cli`` and ``reasoner.console``, the workshop included) does not import the client
library: only the command line may, through one module (``reasoner.console.players``) that
``match``, ``player``, ``bench --grpc`` and the others use."""

from __future__ import annotations

import ast
from pathlib import Path

import reasoner

PACKAGE = Path(reasoner.__file__).resolve().parent


def _imported(tree: ast.AST) -> set[str]:
    """Every module an import statement of ``tree`` names (at any depth: lazy imports in
    functions count too)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def _library_modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py")
                  if path.relative_to(PACKAGE).parts[0] not in ("cli", "console"))


def test_library_modules_do_not_import_the_client() -> None:
    """No module of the library imports ``client`` or a module of it."""
    modules = _library_modules()
    assert PACKAGE / "corpus.py" in modules and len(modules) > 50
    offenders = sorted(
        f"{path.relative_to(PACKAGE.parent)}: {name}"
        for path in modules
        for name in _imported(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if name == "client" or name.startswith("client."))
    assert not offenders, "\n".join(offenders)


def _imports_the_client(path: Path) -> bool:
    return any(name == "client" or name.startswith("client.")
               for name in _imported(ast.parse(path.read_text(encoding="utf-8"), str(path))))


def test_one_module_of_the_command_line_imports_the_client() -> None:
    """Of the command line, only ``reasoner/console/players.py`` imports the client library;
    the commands (the workshop's too) take the players from it."""
    importing = sorted(str(path.relative_to(PACKAGE.parent))
                       for path in PACKAGE.rglob("*.py") if _imports_the_client(path))
    assert importing == ["reasoner/console/players.py"]


def test_the_walk_sees_the_command_lines_client_imports() -> None:
    """The check would catch an import of the client: the command line's adapter has
    some."""
    assert _imports_the_client(PACKAGE / "console" / "players.py")
