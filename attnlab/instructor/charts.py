"""The class report's charts: matplotlib figures as PNG data: URIs, labelled in the report's language.

Chinese labels need a CJK font. matplotlib caches the fonts it found when it first ran, so a font
installed later (Debian's fonts-noto-cjk) is looked up among the system's font files as well; without
one, the charts fall back to English labels rather than drawing empty boxes.
"""

import base64
import io
from collections.abc import Iterator
from contextlib import contextmanager

from attnlab.core.i18n import t

CJK_FONTS = ("Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "SimHei", "Microsoft YaHei",
             "PingFang SC")
CJK_FILES = ("NotoSansCJK", "SourceHanSans", "wqy-zenhei")  # file names of the fonts above
BLUE, GREEN = "#3b6ea5", "#4c9a5b"
PALETTE = ("#3b6ea5", "#c0504d", "#4c9a5b", "#8064a2", "#d08c2c", "#2c8c99", "#7f7f7f", "#a0522d")


def cjk_font() -> str | None:
    """The name of an installed CJK font matplotlib can use, or None."""
    from matplotlib import font_manager

    def known() -> str | None:
        names = {f.name for f in font_manager.fontManager.ttflist}
        return next((name for name in CJK_FONTS if name in names), None)

    if known() is None:
        for path in sorted(font_manager.findSystemFonts()):
            if any(stem in path for stem in CJK_FILES):
                font_manager.fontManager.addfont(path)
    return known()


def chart_lang(lang: str) -> str:
    """The language the charts can be labelled in: zh only where a CJK font is installed."""
    return lang if lang != "zh" or cjk_font() else "en"


@contextmanager
def fonts(lang: str) -> Iterator[None]:
    from matplotlib import rc_context

    font = cjk_font() if lang == "zh" else None
    with rc_context({"font.sans-serif": [font, "DejaVu Sans"]} if font else {}):
        yield


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def histogram(percents: list[float], lang: str) -> str:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    with fonts(lang):
        fig = Figure(figsize=(6, 3.2), layout="constrained")
        ax = fig.subplots()
        ax.hist(percents, bins=[10 * i for i in range(11)], color=BLUE, edgecolor="white")
        ax.set_xlabel(t("report.chart.score_percent", lang))
        ax.set_ylabel(t("report.count", lang))
        ax.set_xlim(0, 100)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        return _png(fig)


def pass_rates(ids: list[str], rates: list[float], lang: str) -> str:
    from matplotlib.figure import Figure

    with fonts(lang):
        fig = Figure(figsize=(6, 0.3 * len(ids) + 1.0), layout="constrained")
        ax = fig.subplots()
        ax.barh(ids[::-1], [100 * r for r in rates][::-1], color=GREEN)
        ax.set_xlim(0, 100)
        ax.set_xlabel(t("report.chart.passed_percent", lang))
        ax.tick_params(axis="y", labelsize=8)
        return _png(fig)


def misconceptions(bars: list[tuple[str, str, int]], lang: str) -> str | None:
    """Bars (exercise, misconception id, submissions), grouped and coloured by exercise; None if none."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if not bars:
        return None
    exercises = list(dict.fromkeys(ex for ex, _, _ in bars))
    with fonts(lang):
        fig = Figure(figsize=(8, 0.24 * len(bars) + 1.0), layout="constrained")
        ax = fig.subplots()
        labels = [f"{ex} · {mid}" for ex, mid, _ in bars][::-1]
        colours = [PALETTE[exercises.index(ex) % len(PALETTE)] for ex, _, _ in bars][::-1]
        ax.barh(labels, [n for _, _, n in bars][::-1], color=colours)
        ax.set_xlabel(t("report.chart.misconception_count", lang))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(axis="y", labelsize=7)
        return _png(fig)
