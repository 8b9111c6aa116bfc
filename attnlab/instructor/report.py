"""An HTML class report from a grade.py output directory: why submissions fail, and which checks to fix.

    python -m attnlab.instructor.report DIR [-o DIR/report.html] [--lang en|zh] [--submissions SUBDIR] [--known DIR]

Reads DIR/<submission>.json (never grading-run.json, which holds the secret seed) and writes one
self-contained HTML file (charts are PNG data: URIs, the sorting script is inline; nothing is loaded
from elsewhere): scores and pass rates, the misconceptions diagnosed per exercise with example
submissions, item analysis of every case and law (attnlab.instructor.items), a sortable table of
submissions, and one section per submission with its full feedback. The similar-code section
(attnlab.instructor.similarity) needs --submissions, the directory the submissions were graded from (and
takes --known DIR, known sources); without it the section says so and gives the command. Every
submission name, feedback text and line of code is escaped by the template engine.
"""

import argparse
import statistics
import sys
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from attnlab.core import config, paths
from attnlab.core.catalogue import CATALOGUE
from attnlab.core.frameworks import DEFAULT
from attnlab.core.i18n import default_lang, t
from attnlab.core.spec import FRAMEWORKS, Course, SpecError
from attnlab.core.spec_load import load_course
from attnlab.grade.batch.outputs import atomic_write, graded_with, read_results
from attnlab.instructor import charts, items, report_tables
from attnlab.instructor.report_tables import status_counts, status_word
from attnlab.instructor.sources import is_class_file

TEMPLATES = Path(__file__).resolve().parent / "templates"
FONT_STACK = 'system-ui, "Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "Microsoft YaHei", sans-serif'


class ReportError(ValueError):
    """The directory holds nothing to report on; the message names it."""


def load_results(results_dir: Path) -> tuple[list[dict], list[tuple[str, str]]]:
    """Every complete submission result in the directory, by name; and (file, why) for each JSON file there
    that is not one (outputs.read_results), which the report names."""
    if not results_dir.is_dir():
        raise ReportError(f"{results_dir} is not a directory (give the --out directory of grade.py)")
    results, unreadable = read_results(results_dir)
    if not results:
        raise ReportError(f"{results_dir} holds no grade.py results (<submission>.json)")
    return sorted(results, key=lambda r: str(r["submission"])), unreadable


def _course(results: list[dict]) -> Course | None:
    """The course of the assignment the results were graded for, in their framework (its misconception
    sentences are in that framework's words)."""
    assignments = sorted({str(r.get("assignment", "attention")) for r in results})
    frameworks = sorted({str(r.get("framework", DEFAULT)) for r in results})  # untrusted: one known, or none
    framework = frameworks[0] if len(frameworks) == 1 and frameworks[0] in FRAMEWORKS else None
    try:
        return load_course(paths.SPEC_DIR, assignments[0] if len(assignments) == 1 else None, framework)
    except (SpecError, OSError):
        return None  # titles and misconception sentences are then left out, ids still shown


def words(lang: str, area: str = "report") -> dict[str, str]:
    """Every sentence of an area by its short name (report.kind.case -> text["kind.case"]); sentences with
    placeholders are left to the template (t)."""
    return {key[len(area) + 1:]: t(key, lang) for key in CATALOGUE
            if key.startswith(area + ".") and "{" not in CATALOGUE[key]["en"]}


def _charts(results: list[dict], stats, misconceptions: list[dict], lang: str) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    shown = charts.chart_lang(lang)
    percents = [100.0 * r["score"] / r["max_score"] if r["max_score"] else 0.0 for r in results]
    return {"lang": shown, "histogram": charts.histogram(percents, shown),
            "pass_rates": charts.pass_rates([s.id for s in stats], [s.pass_rate for s in stats], shown),
            "misconceptions": charts.misconceptions([(m["exercise"], m["id"], m["count"]) for m in misconceptions],
                                                    shown)}


def _similar(submissions_dir: Path | None, course: Course | None, lang: str, known_dir: Path | None) -> dict:
    """The similar-code section; without the submissions (or the course) it says what is missing and the
    command that adds it, rather than disappearing."""
    if submissions_dir is None or course is None:
        return {"missing": True}
    from attnlab.instructor import similarity, similarity_view

    found = similarity.check_dir(submissions_dir, course, known_dir=known_dir)
    return similarity_view.section(found, submissions_dir, lang)


Loaded = tuple[list[dict], list[tuple[str, str]]]  # what load_results found


def context(results_dir: Path, *, lang: str, submissions_dir: Path | None = None,
            known_dir: Path | None = None, loaded: Loaded | None = None) -> dict:
    """Everything the template shows (`loaded`: load_results(results_dir), where the caller has it)."""
    results, unreadable = loaded or load_results(results_dir)
    course = _course(results)
    # a submission that could not be graded has no score: it is listed, with why, and counted in no statistic
    not_graded = [r for r in results if r.get("not_graded")]
    graded = [r for r in results if not r.get("not_graded")] or results  # (all ungraded: the zeros, still said)
    stats = report_tables.exercise_stats(graded, course, lang)
    order = [s.id for s in stats]
    anchors = report_tables.anchors_for(results)
    misconceptions = report_tables.misconception_rows(stats, anchors)
    item_list, gaps = items.analyse(graded, order)
    scores = [float(r["score"]) for r in graded]
    return {
        "text": words(lang), "sim": words(lang, "similarity"), "lang": lang, "font_stack": FONT_STACK,
        "source": str(results_dir), "not_graded": len(not_graded), "unreadable": unreadable,
        "mixed_checks": ", ".join(f"{count} × {digest}" for digest, count in graded_with(results)),
        "count": len(results), "mean": statistics.fmean(scores), "median": statistics.median(scores),
        "max_score": max(float(r["max_score"]) for r in results), "stats": stats,
        "status_counts": {s.id: status_counts(s, lang) for s in stats},
        "legend": report_tables.legend(lang),
        "charts": _charts(graded, stats, misconceptions, lang), "misconceptions": misconceptions,
        "items": item_list, "gaps": gaps, "rows": report_tables.submission_rows(results, order, anchors, lang),
        "sections": report_tables.submission_sections(results, stats, anchors, lang),
        "similar": _similar(submissions_dir, course, lang, known_dir), "status_word": lambda s: status_word(s, lang),
        "t": lambda key, **values: t(key, lang, **values),
    }


def render(results_dir: Path, *, lang: str, submissions_dir: Path | None = None, known_dir: Path | None = None,
           loaded: Loaded | None = None) -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(**context(results_dir, lang=lang, submissions_dir=submissions_dir,
                                                               known_dir=known_dir, loaded=loaded))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.report", description=__doc__.split("\n")[0])
    parser.add_argument("results_dir", type=Path, help="a grade.py --out directory")
    parser.add_argument("-o", "--output", type=Path, help="HTML file (default: RESULTS_DIR/report.html)")
    config.add_arguments(parser, ("lang",))
    parser.add_argument("--submissions", type=Path, default=None,
                        help="the directory of submissions that was graded, or the LMS download's zip or tar archive "
                             "that was: fills the similar-code section")
    parser.add_argument("--known", type=Path, default=None,
                        help="known sources (public code, last year's solutions) to compare the submissions with")
    opts = parser.parse_args(argv)
    for flag, given in (("--submissions", opts.submissions), ("--known", opts.known)):
        if given is not None and not given.is_dir() and not (flag == "--submissions" and is_class_file(given)):
            kind = "a directory, nor a zip or tar archive" if flag == "--submissions" else "a directory"
            print(f"python -m attnlab.instructor.report: {flag} {given} is not {kind}", file=sys.stderr)
            return 2
    try:
        loaded = load_results(opts.results_dir)  # read once: for the report and for the files named below
        html = render(opts.results_dir, lang=opts.lang or default_lang(), submissions_dir=opts.submissions,
                      known_dir=opts.known, loaded=loaded)
    except ReportError as exc:
        print(f"python -m attnlab.instructor.report: {exc}", file=sys.stderr)
        return 2
    for name, why in loaded[1]:  # also in the report, under its first line
        print(f"python -m attnlab.instructor.report: {opts.results_dir / name} left out: {why}", file=sys.stderr)
    output = opts.output or opts.results_dir / "report.html"
    atomic_write(output, html)  # the results' file mode (0600): the report holds every student's feedback
    print(f"wrote {output.resolve()}")
    if opts.submissions is None:  # said, so that a missing section is never mistaken for an honest class
        print("no --submissions: the report has no similar-code section (give the directory that was graded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
