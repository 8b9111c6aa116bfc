"""A spec YAML value plus where it came from (file and key path), so that every error reading it can say
`file: key.path: expected ...`. Used by spec_load (the whole spec) and spec_words (a framework's own text)."""

from pathlib import Path
from typing import Any

from attnlab.core.spec import SpecError

_MISSING = object()


class Node:
    """A YAML value plus where it came from, so every error can say `file: key.path: ...`."""

    def __init__(self, value: Any, file: Path, where: str = ""):
        self.value, self.file, self.where = value, file, where

    def fail(self, expected: str, got: Any = _MISSING) -> SpecError:
        shown = "" if got is _MISSING else f", got {got!r}"
        return SpecError(f"{self.file}: {self.where or '<top>'}: expected {expected}{shown}")

    def child(self, key: str | int) -> "Node":
        sep = f"[{key}]" if isinstance(key, int) else (f".{key}" if self.where else key)
        return Node(self.value[key] if key in self._keys() else _MISSING, self.file, self.where + sep)

    def _keys(self):
        return range(len(self.value)) if isinstance(self.value, list) else self.value

    def get(self, key: str, kind: type | tuple, default: Any = _MISSING) -> Any:
        node = self.child(key)
        if node.value is _MISSING:
            if default is _MISSING:
                raise node.fail(f"a {_name(kind)} (this key is required)")
            return default
        if not isinstance(node.value, kind) or (kind in (int, float) and isinstance(node.value, bool)):
            raise node.fail(f"a {_name(kind)}", node.value)
        return node.value

    def mapping(self, key: str, required: bool = True) -> "Node":
        node = self.child(key)
        if node.value is _MISSING and not required:
            return Node({}, self.file, node.where)
        if not isinstance(node.value, dict):
            raise node.fail("a mapping", None if node.value is _MISSING else node.value)
        return node

    def items(self):
        return [(k, self.child(k)) for k in self.value]

    def sequence(self, key: str, required: bool = True) -> list["Node"]:
        node = self.child(key)
        if node.value is _MISSING and not required:
            return []
        if not isinstance(node.value, list):
            raise node.fail("a list", None if node.value is _MISSING else node.value)
        return [node.child(i) for i in range(len(node.value))]

    def one_of(self, key: str, options: tuple, default: Any = _MISSING) -> Any:
        value = self.get(key, str, default)
        if value not in options:
            raise self.child(key).fail(f"one of {list(options)}", value)
        return value

    def only(self, allowed: set[str]) -> None:
        extra = sorted(set(self.value) - allowed)
        if extra:
            raise self.fail(f"only keys {sorted(allowed)}", extra[0])


def _name(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({int: "integer", float: "number", str: "string", bool: "boolean", list: "list",
                        dict: "mapping"}.get(k, k.__name__) for k in kinds)
