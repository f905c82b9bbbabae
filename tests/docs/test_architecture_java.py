"""The connector's Java packages keep the rule docs/architecture.md gives the Python ones: no two packages
(io.hudimeta.X.Y, each its own) use each other, directly or round a circle; and every option key the connector
names is spelled in one main-source file (a constant the others use), so a key cannot drift between its users."""
import re
from collections import defaultdict
from pathlib import Path

from conftest import PROJECT
from tests.docs.graphs import circles

MAIN = PROJECT / "connector" / "src" / "main" / "java"
# a class of io.hudimeta named by its package (lower-case segments) then its name: what an import, a static
# import and a qualified name in code all look like
REFERENCE = re.compile(r"\bio\.hudimeta((?:\.[a-z_]\w*)*)\.[A-Z]")
PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
# a whole literal that is a key: "hoodie.table.name", "hudi-meta.check.listed.files", the prefix "hoodie."
KEY = re.compile(r"(?:hoodie|hudi-meta)\.[\w.\-]*")
TOKENS = re.compile(r'"""(?:\\.|[^\\])*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
# keys allowed in more than one main-source file, with the reason; none needed today
SHARED_KEYS: dict[str, str] = {}


def _split(source: str) -> tuple[str, list[str]]:
    """The code of a Java source with comments and literals blanked out, and its string literals' contents."""
    literals = []

    def blank(m: re.Match) -> str:
        token = m.group(0)
        if token.startswith('"'):
            literals.append(token[3:-3] if token.startswith('"""') else token[1:-1])
        return " "

    return TOKENS.sub(blank, source), literals


def package_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """package -> the other io.hudimeta packages its files name a class of (sources: file name -> text)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for text in sources.values():
        code, _ = _split(text)
        own = PACKAGE.search(code).group(1)
        graph[own].update("io.hudimeta" + m.group(1) for m in REFERENCE.finditer(code))
        graph[own].discard(own)
    for used in list(graph.values()):
        for p in used:
            graph.setdefault(p, set())
    return dict(graph)


def key_files(sources: dict[str, str]) -> dict[str, set[str]]:
    """Each option key spelled as a whole string literal -> the files spelling it."""
    files: dict[str, set[str]] = defaultdict(set)
    for name, text in sources.items():
        for literal in _split(text)[1]:
            if KEY.fullmatch(literal):
                files[literal].add(name)
    return dict(files)


def _main_sources(root: Path = MAIN) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.java"))}


def test_no_circle_between_java_packages():
    assert circles(package_graph(_main_sources())) == []


def test_each_option_key_is_spelled_in_one_file():
    spelled = {k: sorted(f) for k, f in key_files(_main_sources()).items() if len(f) > 1 and k not in SHARED_KEYS}
    assert spelled == {}


def test_the_checks_find_a_circle_and_a_key_spelled_twice():
    sources = {
        "a/A.java": 'package io.hudimeta.a;\nimport io.hudimeta.b.B;\nclass A { String k = "hoodie.x.y"; }',
        "b/B.java": 'package io.hudimeta.b;\nclass B { Object c = io.hudimeta.c.C.of(); String k = "hoodie.x.y"; }',
        # comments and literals are not references, nor messages keys
        "c/C.java": 'package io.hudimeta.c;\n// io.hudimeta.b.B\n/** {@link io.hudimeta.d.D} */\nclass C {\n'
                    '  String m = "io.hudimeta.d.D"; String s = "hoodie.x.y is not set";\n'
                    '  Object a = io.hudimeta.a.A.class; Object e = io.hudimeta.HudiException.class; }',
    }
    graph = package_graph(sources)
    assert graph["io.hudimeta.c"] == {"io.hudimeta.a", "io.hudimeta"}
    assert circles(graph) == [["io.hudimeta.a", "io.hudimeta.b", "io.hudimeta.c"]]
    assert key_files(sources) == {"hoodie.x.y": {"a/A.java", "b/B.java"}}
