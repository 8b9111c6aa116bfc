"""Feedback as HTML for a notebook: the same Lines as the text (attnlab.student.text), one element each,
every piece of text escaped. Inline styles only, so the block looks the same in Jupyter, VS Code and an
exported notebook, which drop <style> elements or scripts.
"""

from html import escape

from attnlab.student.text import Line

STYLES = {
    "heading": "font-weight:bold",
    "passed": "color:#1a7f37",
    "failed": "color:#cf222e;font-weight:bold",
    "note": "color:#57606a",
    "excluded": "color:#57606a",
    "hint": "",
    "score": "font-weight:bold;margin-top:0.4em",
    "plain": "",
}
PRE = "margin:0.1em 0 0.3em 0;padding:0.3em 0.5em;background:#f6f8fa;white-space:pre-wrap;font-size:90%"


def _element(line: Line) -> str:
    indent = f"margin-left:{1.2 * line.depth:g}em"
    if line.kind == "detail":
        return f'<pre style="{indent};{PRE}">{escape(line.text)}</pre>'
    style = ";".join(part for part in (indent, STYLES.get(line.kind, "")) if part)
    return f'<div style="{style}">{escape(Line.MARKS.get(line.kind, "") + line.text)}</div>'


def as_html(lines: list[Line]) -> str:
    body = "\n".join(_element(line) for line in lines)
    return f'<div class="attnlab-feedback" style="font-family:sans-serif;line-height:1.4">\n{body}\n</div>'
