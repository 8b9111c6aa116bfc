"""Fingerprints of a function body, as MOSS computes them (Schleimer, Wilkerson and Aiken, "Winnowing:
local algorithms for document fingerprinting", SIGMOD 2003).

The body (docstring and signature left out) is tokenised with Python's own tokenizer and normalised:
names become V (keywords, builtins and attribute names stay: they are the structure), numbers N,
strings S; comments and blank lines vanish. Every run of K tokens is hashed (a fixed polynomial over
fixed token ids, so fingerprints are the same on every machine and run), and winnowing keeps the
smallest hash of every WINDOW consecutive ones: any shared run of K + WINDOW - 1 tokens is found, and
no run shorter than K is.
"""

import ast
import builtins
import io
import keyword
import tokenize
import zlib
from dataclasses import dataclass, field

import numpy as np

K = 10  # tokens per hashed run: shorter common runs are noise (`return x / x.sum(dim=-1)`)
WINDOW = 6  # winnowing window: runs of K + WINDOW - 1 = 15 tokens are always found
BASE = np.uint64(1_000_003)
KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins))
SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12 splits f-strings into tokens
FSTRING_END = getattr(tokenize, "FSTRING_END", None)
_IDS: dict[str, int] = {}


@dataclass(frozen=True)
class Body:
    """One function's body, normalised, with where each token came from."""

    path: str  # the file in the submission
    first_line: int  # the line of `def` in that file
    source: str  # the whole function, as written
    tokens: tuple[str, ...]
    lines: tuple[int, ...]  # per token: its line in `source` (1-based)
    fingerprints: dict[int, int] = field(compare=False, default_factory=dict)  # hash -> first token index


def top_level_functions(text: str) -> dict[str, tuple[int, str, int, int]]:
    """Name -> (line of `def`, source of the function, line and column in that source where the body
    starts after any docstring) of each top-level def."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            start = (body[0].lineno - first + 1, body[0].col_offset) if body else (node.end_lineno - first + 2, 0)
            found[node.name] = (first, "".join(lines[first - 1:node.end_lineno]), *start)
    return found


def normalise(source: str, body_line: int, body_column: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The normalised tokens of `source` from its body on (line, column), and each one's line."""
    body = "".join(source.splitlines(keepends=True)[body_line - 1:])
    tokens, lines = [], []
    previous, in_fstring = "", 0
    for tok in tokenize.generate_tokens(io.StringIO(body).readline):
        if tok.type == FSTRING_START:
            in_fstring += 1
            if in_fstring == 1:
                tokens.append("S")
                lines.append(tok.start[0] + body_line - 1)
        elif tok.type == FSTRING_END:
            in_fstring -= 1
        if in_fstring or tok.type in SKIPPED or tok.type == FSTRING_END or tok.start < (1, body_column):
            continue
        word = _word(tok, previous)
        previous = tok.string
        tokens.append(word)
        lines.append(tok.start[0] + body_line - 1)
    return tuple(tokens), tuple(lines)


def _word(tok: tokenize.TokenInfo, previous: str) -> str:
    if tok.type == tokenize.NAME:
        return tok.string if tok.string in KEPT_NAMES or previous == "." else "V"
    if tok.type == tokenize.NUMBER:
        return "N"
    if tok.type == tokenize.STRING:
        return "S"
    return {tokenize.NEWLINE: ";", tokenize.INDENT: "{", tokenize.DEDENT: "}"}.get(tok.type, tok.string)


def _token_id(word: str) -> int:
    found = _IDS.get(word)
    if found is None:
        found = _IDS[word] = zlib.crc32(word.encode()) + 1
    return found


def kgram_hashes(tokens: tuple[str, ...]) -> np.ndarray:
    """The hash of every run of K tokens (uint64; wrapping arithmetic is the modulus)."""
    ids = np.fromiter((_token_id(w) for w in tokens), dtype=np.uint64, count=len(tokens))
    count = len(ids) - K + 1
    if count <= 0:
        return np.zeros(0, dtype=np.uint64)
    hashes = np.zeros(count, dtype=np.uint64)
    for j in range(K):
        hashes = hashes * BASE + ids[j:j + count]
    return hashes


def winnow(hashes: np.ndarray) -> dict[int, int]:
    """Hash -> first position among those winnowing selects (the rightmost minimum of every window)."""
    if len(hashes) == 0:
        return {}
    if len(hashes) < WINDOW:
        positions = np.array([len(hashes) - 1 - int(np.argmin(hashes[::-1]))])
    else:
        windows = np.lib.stride_tricks.sliding_window_view(hashes, WINDOW)
        rightmost = WINDOW - 1 - np.argmin(windows[:, ::-1], axis=1)
        positions = np.unique(np.arange(len(windows)) + rightmost)
    selected: dict[int, int] = {}
    for position in positions.tolist():
        selected.setdefault(int(hashes[position]), position)
    return selected


def body_of(path: str, first_line: int, source: str, body_line: int, body_column: int) -> Body:
    tokens, lines = normalise(source, body_line, body_column)
    return Body(path, first_line, source, tokens, lines, winnow(kgram_hashes(tokens)))
