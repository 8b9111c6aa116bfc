"""Text in a terminal's columns: a CJK character (a student's or a file's name in Chinese) takes two and a
combining mark none, so tables line up only when padded by display width, not by len()."""

import unicodedata


def width(text: str) -> int:
    """Columns a terminal uses for `text`: CJK characters take two, a combining mark (Yoruba's tones, a name
    written decomposed) none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def pad(text: str, columns: int) -> str:
    """`text` followed by spaces up to `columns` display columns."""
    return text + " " * max(columns - width(text), 0)
