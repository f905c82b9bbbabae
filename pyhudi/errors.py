"""The one base of every pyhudi error, so callers can catch pyhudi's failures as one kind.

Each error also derives from the builtin it refines (ValueError for bad input or bad bytes,
OSError for storage, RuntimeError for protocol states), so existing `except ValueError` code keeps
working.
"""


class HudiError(Exception):
    """Base of every error pyhudi raises on purpose."""


class CorruptFileError(HudiError, ValueError):
    """A file's bytes cannot be decoded: truncated, bit-flipped, or not the format they claim. The
    message names the file (or "input" when only bytes were given) and what is wrong."""
