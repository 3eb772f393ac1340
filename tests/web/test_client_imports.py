"""The web client's module graph: every import names a module file, and nothing is circular.

``client_web/`` is served as it is, with no bundler, so the browser resolves every import
itself: a wrong path fails only at run time, and an import cycle makes a module's bindings
depend on which module happens to be evaluated first. These tests read every import of
``client_web/js/**/*.js`` (import and re-export declarations, and ``import("...")``),
resolve the relative paths and check the graph, in Python, without running any JavaScript.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "client_web"
JS = CLIENT / "js"

# What may come just before a "/" that starts a regular expression rather than a division.
_BEFORE_REGEX = frozenset("([{,;:=!&|?+-*%<>~^}") | {
    "",
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "instanceof",
    "yield",
    "await",
}
_WORD = re.compile(r"[A-Za-z_$][\w$]*|\d[\w.]*")

# Patterns run on blanked code (see blank_out): a literal keeps only its quotes, and its
# text is looked up by the position of its opening quote. A declaration starts a statement;
# its clause (names, braces, commas, "* as") may span lines.
_DECLARATION = re.compile(
    r"^[ \t]*(?:import|export)\b[\w$\s{},*]*?\bfrom\s*(?P<q>['\"])", re.MULTILINE
)
_BARE = re.compile(r"^[ \t]*import\s*(?P<q>['\"])", re.MULTILINE)
_DYNAMIC = re.compile(r"(?<![\w$.])import\s*\(\s*(?P<q>['\"`])?")
_CLOSE = re.compile(r"\s*\)")


@dataclass(frozen=True)
class Code:
    """JavaScript source with its comments and literals blanked.

    Attributes:
        text: the source, with comments and the contents of strings, templates and regular
            expressions replaced by spaces (quotes and newlines kept, so positions and line
            numbers still match the source).
        literals: the text of each string or template literal by the position of its
            opening quote; None for a template with ``${...}`` substitutions.
    """

    text: str
    literals: dict[int, str | None]


def blank_out(source: str) -> Code:
    """Blank the comments and literals of JavaScript source, keeping the literals aside.

    A small tokenizer: enough to tell code from comments, strings, template literals (with
    nested substitutions) and regular expressions, which may hold quotes or slashes.

    Args:
        source: the text of a module.

    Returns:
        The blanked code and the literals' texts.
    """
    chars = list(source)
    literals: dict[int, str | None] = {}
    resume: list[int] = []  # brace depth at which each open ${...} substitution ends
    depth = 0
    last = ""  # the previous token: a punctuator, a word, or "0" for a value
    n = len(source)

    def blank(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if chars[k] != "\n":
                chars[k] = " "

    def template_part(start: int) -> tuple[int, bool]:
        """Scan template text from start: the index after its end, and whether ${ ended it."""
        k = start
        while k < n:
            if source[k] == "\\":
                k += 2
            elif source[k] == "`":
                blank(start, k)
                return k + 1, False
            elif source.startswith("${", k):
                blank(start, k)
                return k + 2, True
            else:
                k += 1
        blank(start, n)
        return n, False

    i = 0
    while i < n:
        c = source[i]
        if c.isspace():
            i += 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c in "'\"":
            k = i + 1
            while k < n and source[k] not in (c, "\n"):
                k += 2 if source[k] == "\\" else 1
            literals[i] = source[i + 1 : k]
            blank(i + 1, k)
            i, last = k + 1, "0"
        elif c == "`" or (c == "}" and resume and depth == resume[-1]):
            if c == "}":
                resume.pop()
            end, substitution = template_part(i + 1)
            if c == "`":
                literals[i] = None if substitution else source[i + 1 : end - 1]
            if substitution:
                resume.append(depth)
            i, last = end, "{" if substitution else "0"
        elif c == "/" and last in _BEFORE_REGEX:
            k, in_class = i + 1, False
            while k < n and source[k] != "\n" and (source[k] != "/" or in_class):
                if source[k] == "\\":
                    k += 1
                elif source[k] in "[]":
                    in_class = source[k] == "["
                k += 1
            blank(i + 1, k)
            i, last = k + 1, "0"
        elif word := _WORD.match(source, i):
            i, last = word.end(), word.group()
        else:
            depth += {"{": 1, "}": -1}.get(c, 0)
            i, last = i + 1, c
    return Code("".join(chars), literals)


def find_imports(source: str) -> list[tuple[int, str | None]]:
    """Every import of a module, in source order.

    Args:
        source: the text of a module.

    Returns:
        (line, specifier) pairs for import and re-export declarations and for dynamic
        ``import(...)``; the specifier is None for a dynamic import of a computed path.
    """
    code = blank_out(source)
    found: dict[int, str | None] = {}
    for pattern in (_DECLARATION, _BARE):
        for m in pattern.finditer(code.text):
            found[m.start("q")] = code.literals.get(m.start("q"))
    for m in _DYNAMIC.finditer(code.text):
        if m.group("q") is None:
            found[m.start()] = None
            continue
        quote = m.start("q")
        spec = code.literals.get(quote)
        if spec is not None and not _CLOSE.match(code.text, quote + len(spec) + 2):
            spec = None  # "./a" + x: only part of the path is literal
        found[quote] = spec
    return [(code.text.count("\n", 0, pos) + 1, spec) for pos, spec in sorted(found.items())]


def resolve(importer: Path, specifier: str | None, root: Path) -> Path:
    """The module file that an import names, as the browser resolves it.

    Args:
        importer: the importing module's file.
        specifier: the import's path (None for a computed dynamic import).
        root: the folder every module lives in.

    Returns:
        The imported module's file.

    Raises:
        ValueError: the path is computed, not relative, outside ``root``, or names no file
            (names are case-sensitive, as on the server).
    """
    if specifier is None:
        raise ValueError("a dynamic import of a computed path cannot be checked")
    if not specifier.startswith(("./", "../")):
        raise ValueError(f"{specifier!r} is not a relative path (no bundler resolves it)")
    target = (importer.parent / specifier).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ValueError(f"{specifier!r} leads out of {root.name}/")
    if not target.is_file() or target.name not in {p.name for p in target.parent.iterdir()}:
        raise ValueError(f"{specifier!r} names no file")
    return target


def module_graph(root: Path) -> tuple[dict[str, list[str]], list[str]]:
    """The import graph of every ``*.js`` file under ``root``.

    Args:
        root: the folder of the modules.

    Returns:
        The graph (each module's POSIX path relative to ``root``, such as
        ``views/play.js``, to the modules it imports) and the imports that do not resolve,
        one ``file:line: why`` line each.
    """
    base = root.resolve()
    graph: dict[str, list[str]] = {}
    problems: list[str] = []
    for path in sorted(base.rglob("*.js")):
        name = path.relative_to(base).as_posix()
        graph[name] = []
        for line, spec in find_imports(path.read_text(encoding="utf-8")):
            try:
                target = resolve(path, spec, base)
            except ValueError as exc:
                problems.append(f"{name}:{line}: {exc}")
                continue
            graph[name].append(target.relative_to(base).as_posix())
    return graph, problems


def find_cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The cycles a depth-first walk of the graph closes, each from a module back to itself.

    The graph is acyclic exactly when this is empty (every cycle closes at least one).

    Args:
        graph: each node to the nodes it points at.

    Returns:
        Each cycle as its nodes in order, the first repeated at the end.
    """
    cycles: list[list[str]] = []
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> None:
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in done:
                visit(nxt)
        path.pop()
        done.add(node)

    for node in sorted(graph):
        if node not in done:
            visit(node)
    return cycles


class _ModuleScripts(HTMLParser):
    """Collects the ``src`` of every ``<script type="module">`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Note a module script's source."""
        values = dict(attrs)
        src = values.get("src")
        if tag == "script" and values.get("type") == "module" and src:
            self.sources.append(src)


def entry_points() -> list[str]:
    """The modules ``client_web/index.html`` loads, relative to ``client_web/js``."""
    page = _ModuleScripts()
    page.feed((CLIENT / "index.html").read_text(encoding="utf-8"))
    return [(CLIENT / src).resolve().relative_to(JS.resolve()).as_posix() for src in page.sources]


@functools.cache
def client_graph() -> tuple[dict[str, list[str]], list[str]]:
    """The module graph of ``client_web/js`` and its unresolved imports (read once)."""
    return module_graph(JS)


def test_the_scanner_reads_every_form_of_import() -> None:
    source = """\
// import { gone } from "./commented.js";
/* import "./block.js";
   import x from "./block2.js"; */
import { a, b as c } from "./one.js";
import {
  d,
  e,
} from '../two.js';
import * as ns from "./three.js";
import "./side-effect.js";
export { f } from "./four.js";
export * from "./five.js";
export function fromJSON(data) { return data; }
const quotes = /["'`]/g; // a regular expression is not a string
const text = `import y from "./in-template.js" ${a ? "x" : `y`} //`;
const s = "import z from './in-string.js'";
document.importNode(node, true);
const later = await import("./six.js");
const computed = import(`./views/${name}.js`);
const joined = import("./seven" + ".js");
"""
    assert find_imports(source) == [
        (4, "./one.js"),
        (8, "../two.js"),
        (9, "./three.js"),
        (10, "./side-effect.js"),
        (11, "./four.js"),
        (12, "./five.js"),
        (18, "./six.js"),
        (19, None),
        (20, None),
    ]


def test_the_scanner_reports_what_does_not_resolve(tmp_path: Path) -> None:
    (tmp_path / "views").mkdir()
    (tmp_path / "dom.js").write_text("export const x = 1;\n")
    (tmp_path / "views" / "a.js").write_text(
        'import { x } from "../dom.js";\n'
        'import { y } from "../Dom.js";\n'
        'import { z } from "lib";\n'
        'import { w } from "../../outside.js";\n'
        "import(`./${name}.js`);\n"
    )
    graph, problems = module_graph(tmp_path)
    assert graph == {"dom.js": [], "views/a.js": ["dom.js"]}
    assert problems == [
        "views/a.js:2: '../Dom.js' names no file",
        "views/a.js:3: 'lib' is not a relative path (no bundler resolves it)",
        f"views/a.js:4: '../../outside.js' leads out of {tmp_path.name}/",
        "views/a.js:5: a dynamic import of a computed path cannot be checked",
    ]


def test_the_cycle_finder_names_each_cycle() -> None:
    graph = {"a.js": ["b.js"], "b.js": ["c.js", "d.js"], "c.js": ["a.js"], "d.js": ["d.js"]}
    assert find_cycles(graph) == [["a.js", "b.js", "c.js", "a.js"], ["d.js", "d.js"]]
    assert find_cycles({"a.js": ["b.js", "c.js"], "b.js": ["c.js"], "c.js": []}) == []


def test_every_import_names_a_module_file() -> None:
    graph, problems = client_graph()
    assert graph, f"no modules found under {JS}"
    assert sum(map(len, graph.values())) > 0, "no imports found: the scanner is broken"
    assert not problems, "imports that do not resolve:\n  " + "\n  ".join(problems)


def test_no_module_imports_an_entry_point() -> None:
    graph, _ = client_graph()
    entries = entry_points()
    assert entries, "index.html loads no module script"
    for entry in entries:
        assert entry in graph, f"index.html loads {entry}, which is not a module file"
        importers = sorted(name for name, deps in graph.items() if entry in deps)
        assert not importers, f"{entry} is the page's entry point; imported by {importers}"


def test_the_module_graph_has_no_cycle() -> None:
    graph, _ = client_graph()
    cycles = find_cycles(graph)
    assert not cycles, "import cycles in client_web/js:\n  " + "\n  ".join(
        " -> ".join(cycle) for cycle in cycles
    )
