"""The layout docs/architecture.md describes holds: subpackages import one way, no two modules import each
other (directly or round a circle), no module grows past ~500 lines, and a module's tests are found by its
path."""
import ast
import re
from pathlib import Path

from conftest import PROJECT
from tests.docs.graphs import circles

PACKAGE = PROJECT / "pyhudi"
# top to bottom: a package imports only packages after it (docs/architecture.md, "Packages")
ORDER = ["spark", "services", "write", "metadata", "table", "config", "log", "basefile", "hfile", "avro", "storage",
         "object_store", "errors"]
MAX_LINES = 500
IMPORT = re.compile(r"^\s*from pyhudi\.(\w+)|^\s*from pyhudi import (\w+)|^\s*import pyhudi\.(\w+)", re.M)


def _package(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_subpackages_import_one_way():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        src = _package(path)
        if src not in ORDER:
            continue  # the top-level modules (hudi_table, cli, build, demo) may use any package
        for m in IMPORT.finditer(path.read_text(encoding="utf-8")):
            dst = next(g for g in m.groups() if g)
            if dst in ORDER and dst != src and ORDER.index(dst) < ORDER.index(src):
                wrong.append(f"{path.relative_to(PROJECT)} imports pyhudi.{dst}")
    assert wrong == []


def _module(path: Path) -> str:
    parts = path.relative_to(PROJECT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in PACKAGE.rglob("*.py")}


def _typing_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imported(path: Path) -> set[str]:
    """The pyhudi modules `path` imports when it runs, wherever the import statement is (a function's
    own import closes a circle as surely as the file's); imports for type checkers only are left out."""
    found: set[str] = set()

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _typing_only(child):
                continue
            if isinstance(child, ast.ImportFrom) and (child.module or "").startswith("pyhudi"):
                found.update(f"{child.module}.{a.name}" if f"{child.module}.{a.name}" in MODULES else child.module
                             for a in child.names)
            elif isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name in MODULES)
            walk(child)
    walk(ast.parse(path.read_text(encoding="utf-8")))
    return found & MODULES.keys()


def test_no_circle_between_modules():
    graph = {m: _imported(p) - {m} for m, p in MODULES.items()}
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_is_over_500_lines():
    long = {str(p.relative_to(PROJECT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_tests_mirror_the_package():
    """tests/pyhudi/<pkg>/test_<module>[_<aspect>].py tests pyhudi/<pkg>/<module>.py."""
    orphans = []
    for test in (PROJECT / "tests" / "pyhudi").rglob("test_*.py"):
        rel = test.relative_to(PROJECT / "tests" / "pyhudi")
        folder = PACKAGE.joinpath(*rel.parts[:-1])
        stem = rel.stem[len("test_"):]
        names = [stem] + ["_".join(stem.split("_")[:i]) for i in range(len(stem.split("_")) - 1, 0, -1)]
        if not any((folder / f"{n}.py").is_file() or (folder / n).is_dir() for n in names):
            orphans.append(str(rel))
    assert orphans == []


def test_connector_tests_mirror_its_packages():
    java = PROJECT / "connector" / "src" / "main" / "java" / "io" / "hudimeta"
    folders = {p.relative_to(PROJECT / "tests" / "connector").parts[0]
               for p in (PROJECT / "tests" / "connector").rglob("test_*.py") if p.parent.name != "connector"}
    assert sorted(f for f in folders if not (java / f).is_dir()) == []
