"""Each diagnosis and hint once per exercise: the same mistake found by seven cases is named under the first
and not repeated under the other six (grade.py's feedback, `attnlab check`, the notebook, pytest)."""

from attnlab.core.i18n import t


class SaidOnce:
    """The "Likely cause: …" and "Hint: …" lines of one exercise's feedback, each kept where it first
    appears; every other line is kept as it is."""

    def __init__(self, lang: str):
        self.prefixes = tuple(t(key, lang, **{value: ""}).strip() for key, value in (("diagnosis", "message"),
                                                                                      ("hint", "hint")))
        self.said: set[str] = set()

    def filter(self, text: str) -> str:
        kept = []
        for line in text.splitlines():
            said = line.strip()
            if said.startswith(self.prefixes):
                if said in self.said:
                    continue
                self.said.add(said)
            kept.append(line)
        return "\n".join(kept)
