"""The message catalogue: every entry in both languages with the same placeholders, and every key the
code names exists (so no sentence is missing in any language, and no lookup can fail at run time)."""

import ast
import string
from pathlib import Path

import pytest

from attnlab.core import i18n, paths
from attnlab.core.catalogue import CATALOGUE
from attnlab.core.spec_load import load_course

# calls whose first argument is a catalogue key
KEYED = {"t", "Message", "Outcome", "NotImplementedByStudent", "SubmissionError", "ShapeError", "TimeLimit",
         "Overloaded", "MemoryLimit", "NotApplicable", "NotRun", "CheckFailure", "BadSubmission", "IntakeError"}
PREFIXED = {"say": "cli.", "SubmitError": "student."}  # say(key) looks up "cli.<key>", SubmitError "student.<key>"


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


@pytest.mark.parametrize("key", sorted(CATALOGUE))
def test_both_languages_with_the_same_placeholders(key):
    entry = CATALOGUE[key]
    assert set(entry) == set(i18n.LANGS) and all(entry[lang].strip() for lang in i18n.LANGS)
    assert placeholders(entry["en"]) == placeholders(entry["zh"])


def keys_used() -> set[tuple[str, str]]:
    """(file:line, key) of every literal key passed to a keyed call in attnlab/ and spec/."""
    found = set()
    files = [*Path(paths.ROOT / "attnlab").rglob("*.py"), *Path(paths.SPEC_DIR).glob("*.py")]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            first = node.args[0]
            if name in KEYED | PREFIXED.keys() and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add((f"{path.name}:{node.lineno}", PREFIXED.get(name, "") + first.value))
    return found


def test_every_key_the_code_names_exists():
    load_course(paths.SPEC_DIR)  # registers the exercises' own sentences ("<id>.<key>")
    used = keys_used()
    assert len(used) > 100
    missing = sorted(f"{where}: {key}" for where, key in used if not i18n.known(key))
    assert missing == []
