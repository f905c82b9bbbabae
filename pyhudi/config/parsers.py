"""Parsers of option values: each turns the text a user gave into a typed value, or fails with an
error that names the key, the value and what would be valid."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from pyhudi.errors import HudiError

Parser = Callable[[str, str], Any]  # (key as given, raw value) -> value


class OptionError(HudiError, ValueError):
    """An option that is unknown, unsupported, malformed or contradicts the table."""


def text(key: str, raw: str) -> str | None:
    """Text as given; blank is the same as leaving the option out."""
    return raw.strip() or None


def boolean(key: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise OptionError(f"{key}={raw} is not valid; valid values: true, false")
    return value == "true"


def number(minimum: int, what: str) -> Parser:
    """A whole number (Java int or long alike) of at least `minimum`; `what` says what it counts."""
    def parse(key: str, raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise OptionError(f"{key}={raw} is not valid; give {what}")
        return value
    return parse


def real(minimum: float, what: str) -> Parser:
    """A number (Java float or double alike) above `minimum`; `what` says what it is."""
    def parse(key: str, raw: str) -> float:
        try:
            value = float(raw.strip())
        except ValueError:
            value = None
        if value is None or value != value or value <= minimum:
            raise OptionError(f"{key}={raw} is not valid; give {what} above {minimum:g}")
        return value
    return parse


def choice(valid: Mapping[str, str], unsupported: tuple[str, ...] = ()) -> Parser:
    """A case-insensitive choice: `valid` maps each accepted spelling (lower case) to the value;
    `unsupported` are values Apache Hudi takes that pyhudi does not implement yet."""
    def parse(key: str, raw: str) -> str:
        value = valid.get(raw.strip().lower())
        if value is None:
            listed = ", ".join(dict.fromkeys(valid.values()))
            if raw.strip().lower() in (u.lower() for u in unsupported):
                raise OptionError(f"{key}={raw} is not supported yet; the values pyhudi supports: {listed}")
            raise OptionError(f"{key}={raw} is not valid; valid values: {listed}")
        return value
    return parse


def same(*values: str) -> dict[str, str]:
    """Choices spelled as they are named, in any case."""
    return {v.lower(): v for v in values}


def fields(key: str, raw: str) -> list[str]:
    """A comma-separated list of field names."""
    return [f.strip() for f in raw.split(",") if f.strip()]


def only(supported: str, valid: tuple[str, ...], feature: str) -> Parser:
    """An Apache Hudi setting of which pyhudi implements one value: the others (valid in Hudi)
    ask for `feature`, which is refused; anything else is not valid at all."""
    def parse(key: str, raw: str) -> str:
        value = raw.strip().lower()
        if value not in [v.lower() for v in valid]:
            raise OptionError(f"{key}={raw} is not valid; valid values: {', '.join(valid)}")
        if value != supported.lower():
            raise OptionError(f"{key}={raw} asks for {feature}, which pyhudi does not support yet; "
                              f"the value pyhudi supports: {supported}")
        return supported
    return parse


def off(feature: str) -> Parser:
    """A switch of an Apache Hudi feature pyhudi does not have: "false" is honoured, "true" refused."""
    return only("false", ("true", "false"), feature)
