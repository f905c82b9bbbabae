"""An option as pyhudi defines it (Apache Hudi's key, the older keys Hudi still accepts for it, the default,
the parser, what it does), and the registry every definition joins (pyhudi.config.options holds them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from pyhudi.config.parsers import Parser


@dataclass(frozen=True, eq=False)
class Option:
    key: str
    default: Any
    parse: Parser
    doc: str
    alternatives: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return (self.key, *self.alternatives)

    def given(self, options: Mapping[str, str]) -> tuple[str, str] | None:
        """(key as given, raw value) when `options` set this option under any of its keys."""
        for k in self.keys:
            if options.get(k) is not None:
                return k, options[k]
        return None

    def get(self, options: Mapping[str, str]) -> Any:
        found = self.given(options)
        return self.default if found is None else self.parse(*found)


REGISTRY: dict[str, Option] = {}  # key -> option, alternatives included


def define(key: str, default: Any, parse: Parser, doc: str, *alternatives: str) -> Option:
    opt = Option(key, default, parse, doc, alternatives)
    for k in opt.keys:
        if k in REGISTRY:
            raise ValueError(f"option {k} is defined twice")
        REGISTRY[k] = opt
    return opt


def honoured() -> list[Option]:
    """Every honoured option once."""
    return list(dict.fromkeys(REGISTRY.values()))
