"""Every sentence the harness says, in English and Chinese: one catalogue, one way to look it up.

    t("mismatch", "zh", bad=3, ...)           # a sentence in the reader's language
    Message("mismatch", {...}).text("zh")     # the same, kept until the language is known

The catalogue is attnlab/core/catalogue.py (keys are stable, every key has both languages; a test checks
both and that every key used in the code exists). An exercise adds sentences of its own laws through
`register(exercise_id, {...})` from its spec/<id>.py, under "<exercise_id>.<key>". A value that is itself
a Message is rendered in the same language.
"""

import locale
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from attnlab.core.catalogue import CATALOGUE

LANGS = ("en", "zh")
_EXTRA: dict[str, dict[str, str]] = {}  # registered by exercises: "<id>.<key>" -> {lang: text}


@dataclass(frozen=True)
class Message:
    """A catalogue key and the values its sentence needs, rendered once the language is known."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def text(self, lang: str = "en") -> str:
        return t(self.key, lang, **self.values)


def entry(key: str) -> dict[str, str]:
    found = CATALOGUE.get(key) or _EXTRA.get(key)
    if found is None:
        raise KeyError(f"no message {key!r} in the catalogue (attnlab/core/catalogue.py)")
    return found


def t(key: str, lang: str, **values: Any) -> str:
    text = entry(key)
    rendered = {k: v.text(lang) if isinstance(v, Message) else v for k, v in values.items()}
    return text.get(lang, text["en"]).format(**rendered)


def known(key: str) -> bool:
    return key in CATALOGUE or key in _EXTRA


def register(namespace: str, messages: Mapping[str, Mapping[str, str]], *, source: str = "") -> None:
    """Add an exercise's own sentences as "<namespace>.<key>"; each must have every language."""
    for key, text in messages.items():
        missing = [lang for lang in LANGS if not isinstance(text.get(lang), str)]
        if missing:
            raise ValueError(f"{source or namespace}: MESSAGES[{key!r}] lacks {', '.join(missing)}")
        _EXTRA[f"{namespace}.{key}"] = dict(text)


MAX_WIRE_TEXT = 2000  # a message from a runner is untrusted text shown to students: keep it short
MAX_WIRE_DEPTH = 4


def to_wire(message: Message) -> dict:
    """A Message as JSON data (nested Messages too; tuples become lists), to cross the runner's channel."""
    def value(v: Any) -> Any:
        if isinstance(v, Message):
            return to_wire(v)
        if isinstance(v, (list, tuple)):
            return [value(x) for x in v]
        return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)
    return {"key": message.key, "values": {k: value(v) for k, v in message.values.items()}}


def from_wire(data: Any, depth: int = 0) -> Message:
    """The Message a runner sent, validated: a known key and plain values (strings capped); anything else
    becomes a "raw" message holding its (capped) text. Lists come back as tuples (shapes, indices)."""
    def value(v: Any, level: int) -> Any:
        if isinstance(v, dict) and level < MAX_WIRE_DEPTH:
            return from_wire(v, level + 1)
        if isinstance(v, list) and level < MAX_WIRE_DEPTH:
            return tuple(value(x, level + 1) for x in v[:64])
        if isinstance(v, str):
            return v[:MAX_WIRE_TEXT]
        return v if isinstance(v, (int, float, bool)) or v is None else str(v)[:MAX_WIRE_TEXT]
    if not isinstance(data, dict) or not isinstance(data.get("key"), str) or not known(data["key"]):
        return Message("raw", {"text": str(data)[:MAX_WIRE_TEXT]})
    values = data.get("values") if isinstance(data.get("values"), dict) else {}
    message = Message(data["key"], {str(k)[:64]: value(v, depth) for k, v in list(values.items())[:32]})
    try:
        message.text("en")
    except (KeyError, IndexError, ValueError, TypeError):  # values that do not fit the sentence
        return Message("raw", {"text": str(data)[:MAX_WIRE_TEXT]})
    return message


def default_lang() -> str:
    """'zh' when ATTNLAB_LANG or the locale says Chinese, else 'en'."""
    for var in ("ATTNLAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    loc = locale.getlocale()[0] or ""
    return "zh" if loc.lower().startswith("zh") else "en"


def words(keys: tuple[str, ...], lang: str) -> dict[str, str]:
    """Several plain entries at once (templates take a dict of words)."""
    return {key: t(key, lang) for key in keys}


def decoded(data: bytes, *, bom: bool = False) -> str:
    """Text a student or an LMS saved: UTF-8 (`bom`: a byte-order mark before it dropped), or else GB18030,
    which old Notepad on a Chinese Windows saves; raises the UTF-8 UnicodeDecodeError when it is neither."""
    try:
        return data.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        try:
            return data.decode("gb18030")
        except UnicodeDecodeError:
            raise exc from None
