"""The repository explains itself: its docs name every honoured option, and cite only files that exist."""
import re

from conftest import PROJECT
from pyhudi.config import REGISTRY

DOCS = PROJECT / "docs"


def test_every_honoured_option_is_documented():
    text = (DOCS / "options.md").read_text(encoding="utf-8")
    assert [o.key for o in REGISTRY.values() if f"`{o.key}`" not in text] == []


def test_sources_cite_the_repository_docs_not_outside_documents():
    cited, outside = set(), []
    for path in [*PROJECT.glob("pyhudi/**/*.py"), *PROJECT.glob("connector/src/**/*.java")]:
        text = path.read_text(encoding="utf-8")
        cited.update(re.findall(r"docs/([\w-]+\.md)", text))
        if re.search(r"FORMAT-NOTES|DESIGN\.md", text):
            outside.append(str(path.relative_to(PROJECT)))
    assert outside == []
    assert cited and all((DOCS / name).is_file() for name in cited), cited


def test_docs_name_only_files_and_classes_that_exist():
    missing = []
    for doc in [*DOCS.glob("*.md"), PROJECT / "README.md"]:
        text = doc.read_text(encoding="utf-8")
        for path in set(re.findall(r"(pyhudi/[\w/]+\.(?:py|tsv|md))", text)):
            if not (PROJECT / path).exists():
                missing.append(f"{doc.name}: {path}")
        for package, name in set(re.findall(r"io\.hudimeta\.(\w+)\.([A-Z]\w+)", text)):
            if not (PROJECT / "connector/src/main/java/io/hudimeta" / package / f"{name}.java").exists():
                missing.append(f"{doc.name}: io.hudimeta.{package}.{name}")
    assert missing == []


def test_nothing_reaches_outside_the_repository():
    """A clone with nothing beside it runs the demo and the tests: no file refers to a folder beside the
    repository (the folder of fixtures CI lays beside it, say), by a relative path or by a parent's name."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True, check=True).stdout
    outside = re.compile(rb"\.\./shared|[\"']shared[\"'] */|/ *[\"']shared[\"']|, *[\"']shared[\"']")
    found = []
    for name in tracked.decode().split("\0"):
        path = PROJECT / name
        if name and path.is_file() and not name.startswith("tests/fixtures/") and path.suffix != ".zip":
            if outside.search(path.read_bytes()):
                found.append(name)
    assert found == []
