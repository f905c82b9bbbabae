"""Checks shared by the write tests: 'the table is unchanged' means every file's bytes are equal."""
import hashlib
from pathlib import Path

import pytest


def fingerprint(path):
    """Every file under the table with a hash of its bytes, or None when the path does not exist."""
    root = Path(path)
    if not root.exists():
        return None
    return {str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def unchanged_after(path, action, match):
    """`action` fails with an error matching `match` and leaves every file of the table as it was."""
    before = fingerprint(path)
    with pytest.raises(Exception, match=match):
        action()
    assert fingerprint(path) == before
