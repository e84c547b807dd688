"""The documentation in the repository: the site builds with warnings as errors, every
``docs/...md`` page the code cites exists, and the README stays short with links that resolve.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from reasoner.cli.app import parser

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"
README = ROOT / "README.md"

# A docs/...md path as the code cites it, e.g. ``(docs/semantics/translation.md)``; an anchor
# after the path (``docs/semantics/gdl.md#reading``) is not part of it.
CITED_PAGE = re.compile(r"docs/\w[\w./-]*?\.md")
# An inline Markdown link or image: [text](target) or ![alt](target).
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _docs_module(name: str) -> ModuleType:
    """One of the site's hook modules under docs/ (not a package), imported by path."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", ROOT / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _sources() -> list[Path]:
    """The Python files of the product and its tests, whose comments cite the docs."""
    return sorted(path for folder in ("reasoner", "client", "tests")
                  for path in (ROOT / folder).rglob("*.py")
                  if "node_modules" not in path.parts)


def test_site_builds_strictly(tmp_path: Path) -> None:
    """``mkdocs build --strict`` succeeds: no broken link or anchor, no page missing from the
    configuration, no API object or command that cannot be rendered (each a warning, and
    warnings are errors)."""
    assert MKDOCS.exists(), f"{MKDOCS} is missing: install the dev extra (make install)"
    built = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "reference" / "cli" / "serve" / "index.html").exists()


def test_strict_build_fails_on_a_broken_link(tmp_path: Path) -> None:
    """A page linking to a page that does not exist makes the strict build fail, so the
    build test above would catch one."""
    assert MKDOCS.exists(), f"{MKDOCS} is missing: install the dev extra (make install)"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the missing page](missing.md).\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: probe\n")
    built = subprocess.run([str(MKDOCS), "build", "--strict"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert built.returncode != 0
    assert "missing.md" in built.stderr


def test_command_reference_lists_every_command_and_option() -> None:
    """The generated command reference has a page for every subcommand of ``gdl-reasoner``,
    and each page names every option of that subcommand's parser."""
    gen_cli = _docs_module("gen_cli")
    pages = {command.name: gen_cli.page(command) for command in gen_cli.commands()}
    (subparsers,) = [action for action in parser()._actions
                     if isinstance(action, argparse._SubParsersAction)]
    assert sorted(pages) == sorted(subparsers.choices)
    for name, sub in subparsers.choices.items():
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert f"`{flag}`" in pages[name], (name, flag)


def test_doctests_in_docstrings_become_code_blocks() -> None:
    """A run of ``>>>`` lines with its output, up to a blank line, is fenced as code, and a
    doctest already inside a fence is left alone."""
    fence = _docs_module("doctest_blocks").fence_doctests
    text = ["Example:", "", ">>> sorted(x)[:3]", "['a', 'b']", "", "```", ">>> 1", "```"]
    assert fence(text) == ["Example:", "", "", "```pycon", ">>> sorted(x)[:3]", "['a', 'b']",
                           "```", "", "```", ">>> 1", "```"]


def test_cited_doc_pages_exist() -> None:
    """Every ``docs/...md`` path cited in reasoner/, client/ and tests/ names a file of the
    repository."""
    missing = sorted({f"{path.relative_to(ROOT)}: {cited}"
                      for path in _sources()
                      for cited in CITED_PAGE.findall(path.read_text(encoding="utf-8"))
                      if not (ROOT / cited).is_file()})
    assert missing == []


def test_no_citation_of_the_missing_spec() -> None:
    """No comment or docstring cites "SPEC section N" or "SPEC N.N" (a brief that is not in
    the repository; the pages under docs/semantics/ take its place). This file, which names
    the rule, and the generated protobuf code are not searched."""
    spec = re.compile(r"\bSPEC(\b|'s)(?!\w)")
    found = [f"{path.relative_to(ROOT)}:{number}"
             for path in _sources() if path.name not in {"reasoner_pb2.py", "test_docs.py"}
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if spec.search(line)]
    assert found == []


def test_readme_is_short() -> None:
    """README.md holds at most 250 lines; the rest of the documentation lives in docs/."""
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_readme_links_resolve() -> None:
    """Each relative link of README.md (its anchor aside) names a file or folder of the
    repository."""
    links = [link for link in LINK.findall(README.read_text(encoding="utf-8"))
             if not re.match(r"^[a-z][a-z0-9+.-]*:", link) and not link.startswith("#")]
    assert links, "README.md links into docs/"
    missing = sorted({link for link in links if not (ROOT / link.split("#")[0]).exists()})
    assert missing == []
