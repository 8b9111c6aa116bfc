"""What `attnlab` and the notebook API say to students, in English and Chinese, and how a result reads.

Sentences live in TEXT (every key has both languages, like harness.messages); `render_result` turns an
ExerciseResult into the friendly block shown by `attnlab check` and by `check(...)` in a notebook.
"""

import unicodedata

from harness.results import CheckResult, ExerciseResult
from harness.spec import ExerciseSpec

TEXT = {
    "passed": {"en": "passed", "zh": "通过"},
    "failed": {"en": "failed", "zh": "未通过"},
    "not_implemented": {"en": "not implemented", "zh": "未实现"},
    "error": {"en": "error", "zh": "出错"},
    "forbidden": {"en": "forbidden call", "zh": "使用了禁止的调用"},
    "timeout": {"en": "timeout", "zh": "超时"},
    "memory": {"en": "out of memory", "zh": "内存超限"},
    "case": {"en": "case", "zh": "用例"},
    "property": {"en": "property", "zh": "性质"},
    "col_exercise": {"en": "exercise", "zh": "练习"},
    "col_status": {"en": "status", "zh": "状态"},
    "col_checks": {"en": "checks", "zh": "检查"},
    "col_points": {"en": "points", "zh": "得分"},
    "status_title": {"en": "attnlab status: visible checks of {package}",
                     "zh": "attnlab status：{package} 的公开检查"},
    "total": {"en": "total (visible checks)", "zh": "总计（公开检查）"},
    "quiz_status": {"en": "answered {answered}/{total}", "zh": "已作答 {answered}/{total}"},
    "quiz_later": {"en": "graded when you submit", "zh": "提交后评分"},
    "hidden_note": {"en": "When you submit, grade.py also runs hidden cases on fresh random inputs.",
                    "zh": "提交后，grade.py 还会用新的随机输入运行隐藏用例。"},
    "next": {"en": "Next: {id} ({title}). Run `attnlab check {id}` or `attnlab hint {id}`.",
             "zh": "下一步：{id}（{title}）。运行 `attnlab check {id}` 或 `attnlab hint {id}`。"},
    "all_done": {"en": "Every visible check passes. Run `attnlab submit` to make your upload.",
                 "zh": "所有公开检查均已通过。运行 `attnlab submit` 生成要上传的文件。"},
    "import_failed": {"en": "Your package does not import, so every check fails: {problem}",
                      "zh": "你的包无法导入，因此所有检查都会失败：{problem}"},
    "heading": {"en": "{id}: {title} ({points:g} points)", "zh": "{id}：{title}（{points:g} 分）"},
    "start_here": {"en": "{function} in {module}.py still raises NotImplementedError: start there.",
                   "zh": "{module}.py 中的 {function} 仍然抛出 NotImplementedError：从这里开始。"},
    "not_run": {"en": "({count} more checks not run until this one works)",
                "zh": "（另有 {count} 项检查在此项通过之前不会运行）"},
    "score": {"en": "Score on the visible checks: {score:.2f} / {points:g} "
                    "({passed}/{total} checks passed, {status})",
              "zh": "公开检查得分：{score:.2f} / {points:g}（通过 {passed}/{total} 项检查，{status}）"},
    "hints_title": {"en": "Hints for {id}:", "zh": "{id} 的提示："},
    "what_to_do": {"en": "What to implement:", "zh": "需要实现的内容："},
    "unknown_exercise": {"en": "no exercise {id!r}; known exercises: {known}",
                         "zh": "没有名为 {id!r} 的练习；已有的练习：{known}"},
    "quiz_not_checkable": {"en": "the quiz has no function to check: answer in {file} of your package; "
                                 "it is graded when you submit",
                           "zh": "小测验没有需要检查的函数：请在你的包中的 {file} 里作答，提交后评分"},
    "no_package": {"en": "no package to check: pass --impl PATH, set ATTNLAB_IMPL, or set attnlab_impl under "
                         "[tool.pytest.ini_options] in {root}/pyproject.toml",
                   "zh": "找不到要检查的包：请使用 --impl PATH，设置 ATTNLAB_IMPL，"
                         "或在 {root}/pyproject.toml 的 "
                         "[tool.pytest.ini_options] 中设置 attnlab_impl"},
    "viz_written": {"en": "wrote {path}", "zh": "已写入 {path}"},
    "viz_unsupported": {"en": "no picture for {id}: attnlab viz supports {supported}",
                        "zh": "{id} 没有可视化：attnlab viz 支持 {supported}"},
    "viz_yours_failed": {"en": "your function could not be drawn: {problem}",
                         "zh": "无法绘制你的函数：{problem}"},
    "submit_written": {"en": "wrote {path}: {count} files of {package}/ and MANIFEST.json. Upload this zip.",
                       "zh": "已写入 {path}：{package}/ 中的 {count} 个文件以及 MANIFEST.json。"
                             "请上传这个 zip。"},
    "submit_skipped": {"en": "left out (not a regular file): {names}",
                       "zh": "已跳过（不是普通文件）：{names}"},
}


def say(key: str, lang: str, **values) -> str:
    entry = TEXT[key]
    return entry.get(lang, entry["en"]).format(**values)


def status_word(status: str, lang: str) -> str:
    return say(status, lang) if status in TEXT else status


def width(text: str) -> int:
    """Columns a terminal uses for `text` (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, columns: int) -> str:
    return text + " " * max(columns - width(text), 0)


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _check_lines(checks: tuple[CheckResult, ...], lang: str) -> list[str]:
    lines, not_run = [], 0
    for check in checks:
        kind = say(check.kind, lang)
        if check.passed:
            lines.append(f"  ✓ {kind} {check.name}")
        elif not check.message:
            not_run += 1  # skipped after a not-implemented or timeout outcome
        else:
            lines.append(f"  ✗ {kind} {check.name}: {status_word(check.status, lang)}")
            lines.append(_indent(check.message, "      "))
    if not_run:
        lines.append("  " + say("not_run", lang, count=not_run))
    return lines


def render_result(exercise: ExerciseSpec, result: ExerciseResult, lang: str) -> str:
    """The block `attnlab check` prints: heading, each check, hint, then the score line."""
    lines = [say("heading", lang, id=exercise.id, title=exercise.title.get(lang), points=exercise.points)]
    if result.status == "not_implemented":
        lines.append("  " + say("start_here", lang, function=exercise.function, module=exercise.module))
    lines += _check_lines(result.checks, lang)
    if result.status not in ("passed", "not_implemented"):
        lines.append("  " + say("hints_title", lang, id=exercise.id))
        lines += [f"    - {hint}" for hint in exercise.hints.get(lang) or exercise.hints["en"]]
    lines.append(say("score", lang, score=result.score, points=exercise.points,
                     passed=sum(c.passed for c in result.checks), total=len(result.checks),
                     status=status_word(result.status, lang)))
    return "\n".join(lines)


def render_hints(exercise: ExerciseSpec, lang: str) -> str:
    """`attnlab hint`: what the function must do, then every hint of the spec."""
    hints = exercise.hints.get(lang) or exercise.hints["en"]
    heading = say("heading", lang, id=exercise.id, title=exercise.title.get(lang), points=exercise.points)
    return "\n".join([heading, say("what_to_do", lang), "  " + exercise.description.get(lang).strip(),
                      say("hints_title", lang, id=exercise.id), *[f"  - {hint}" for hint in hints]])
