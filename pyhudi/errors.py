"""The one base of every pyhudi error, so callers can catch pyhudi's failures as one kind.

Each error also derives from the builtin it refines (ValueError for bad input or bad bytes,
OSError for storage, RuntimeError for protocol states), so existing `except ValueError` code keeps
working.
"""


class HudiError(Exception):
    """Base of every error pyhudi raises on purpose."""
