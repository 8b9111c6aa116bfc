"""A framework's own words in a spec: what its students read instead of the general text.

An exercise's general description, hints and misconception messages name torch's API (`torch.tril`,
`.view(...)`, `torch.rand(..., generator=generator)`). Beside `en` and `zh`, each of them may give numpy, jax or
mindspore its own text in both languages, as `tolerance:` gives a framework its own tolerances:

    hints:
      en: ["torch.tril keeps the diagonal ..."]
      zh: ["torch.tril 保留对角线……"]
      numpy: {en: ["np.tril keeps the diagonal ..."], zh: ["np.tril 保留对角线……"]}
    misconceptions:
      - id: upper_triangle
        message: {en: "...", zh: "...", mindspore: {en: "... ops.tril ...", zh: "... ops.tril ..."}}

A framework's hints replace the whole general list. Torch's students, and any framework with no text of its
own, read the general text. ExerciseSpec.in_framework applies them; spec_load.exercise reads them here.
"""

from attnlab.core.frameworks.names import DEFAULT, OTHERS
from attnlab.core.frameworks.names import NAMES as FRAMEWORKS
from attnlab.core.i18n import LANGS
from attnlab.core.spec import FrameworkWords, Misconception, Text
from attnlab.core.spec_nodes import Node


def _own_keys(node: Node, frameworks: tuple[str, ...]) -> list[str]:
    """The frameworks `node` gives their own text; anything but en, zh and those is an error naming the key."""
    for key in node.value:
        if key == DEFAULT:
            raise node.child(key).fail(f"no {DEFAULT} key: the general text (en, zh) is what {DEFAULT}'s students "
                                       "read", key)
        if key in FRAMEWORKS and key not in frameworks:
            raise node.child(key).fail(f"a framework the exercise is written in (frameworks: {list(frameworks)})",
                                       key)
    node.only({*LANGS, *(f for f in frameworks if f in OTHERS)})
    return [f for f in frameworks if f in node.value]


def worded_text(node: Node, key: str, frameworks: tuple[str, ...]) -> tuple[Text, dict[str, Text]]:
    """`key: {en: ..., zh: ..., <framework>: {en: ..., zh: ...}}`: the general text and each framework's own."""
    texts = node.mapping(key)
    own = {}
    for framework in _own_keys(texts, frameworks):
        words = texts.mapping(framework)
        words.only(set(LANGS))
        own[framework] = Text(**{lang: words.get(lang, str) for lang in LANGS})
    return Text(**{lang: texts.get(lang, str) for lang in LANGS}), own


def worded_hints(node: Node, frameworks: tuple[str, ...]
                 ) -> tuple[dict[str, tuple[str, ...]], dict[str, dict[str, tuple[str, ...]]]]:
    """`hints: {en: [...], zh: [...], <framework>: {en: [...], zh: [...]}}`: the general hints by language and
    each framework's own (a non-empty list in both languages)."""
    hints = node.mapping("hints")
    own = {}
    for framework in _own_keys(hints, frameworks):
        words = hints.mapping(framework)
        words.only(set(LANGS))
        own[framework] = {lang: _lines(words, lang, empty_ok=False) for lang in LANGS}
    return {lang: _lines(hints, lang, empty_ok=True) for lang in LANGS}, own


def _lines(node: Node, lang: str, *, empty_ok: bool) -> tuple[str, ...]:
    if lang not in node.value:
        raise node.child(lang).fail("a list of hints (both languages, en and zh, are required)")
    items = node.sequence(lang)
    for item in items:
        if not isinstance(item.value, str):
            raise item.fail("a string", item.value)
    if not items and not empty_ok:
        raise node.child(lang).fail("at least one hint (leave the framework out to give it the general hints)", [])
    return tuple(item.value for item in items)


def worded_misconceptions(node: Node, frameworks: tuple[str, ...]
                          ) -> tuple[tuple[Misconception, ...], dict[str, dict[str, Text]]]:
    """`misconceptions:`, each with its general message, and each framework's own messages by misconception id."""
    found, own = [], {}
    for item in node.sequence("misconceptions", required=False):
        item.only({"id", "message"})
        misconception_id = item.get("id", str)
        message, theirs = worded_text(item, "message", frameworks)
        found.append(Misconception(id=misconception_id, message=message))
        for framework, text in theirs.items():
            own.setdefault(framework, {})[misconception_id] = text
    return tuple(found), own


def framework_words(description: dict[str, Text], hints: dict[str, dict[str, tuple[str, ...]]],
                 messages: dict[str, dict[str, Text]]) -> dict[str, FrameworkWords]:
    """Each framework's words from its own description, hints and messages (misconception id -> text, per
    framework); a framework with none of them is left out."""
    named = sorted({*description, *hints, *messages}, key=FRAMEWORKS.index)
    return {f: FrameworkWords(description=description.get(f), hints=hints.get(f), messages=messages.get(f, {}))
            for f in named}
