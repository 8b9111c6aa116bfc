"""The `attnlab` command and the notebook."""

MESSAGES: dict[str, dict[str, str]] = {
    "cli.case": {"en": "case", "zh": "用例"},
    "cli.property": {"en": "property", "zh": "性质"},
    "cli.status_title": {"en": "attnlab status: visible checks of {package}",
                         "zh": "attnlab status：{package} 的公开检查"},
    "cli.total": {"en": "total (visible checks)", "zh": "总计（公开检查）"},
    "cli.quiz_later": {"en": "graded when you submit", "zh": "提交后评分"},
    "cli.hidden_note": {"en": "When you submit, grade.py also runs hidden cases on fresh random inputs.",
                        "zh": "提交后，grade.py 还会用新的随机输入运行隐藏用例。"},
    "cli.next": {"en": "Next: {id} ({title}). Run `attnlab check {id}` or `attnlab hint {id}`.",
                 "zh": "下一步：{id}（{title}）。运行 `attnlab check {id}` 或 `attnlab hint {id}`。"},
    "cli.all_done": {"en": "Every visible check passes. Run `attnlab submit` to make your upload.",
                     "zh": "所有公开检查均已通过。运行 `attnlab submit` 生成要上传的文件。"},
    "cli.all_done_notebook": {"en": "Every visible check passes. Run `attnlab submit --notebook {file}` to make "
                                    "your upload.",
                              "zh": "所有公开检查均已通过。运行 `attnlab submit --notebook {file}` 生成要上传的文件。"},
    "cli.import_failed": {"en": "Every check fails until this is fixed: {problem}",
                          "zh": "在修复这个问题之前，所有检查都会失败：{problem}"},
    "cli.heading": {"en": "{id}: {title} ({points:g} points)", "zh": "{id}：{title}（{points:g} 分）"},
    "cli.start_here": {"en": "{function} in {module}.py still raises NotImplementedError: start there.",
                       "zh": "{module}.py 中的 {function} 仍然抛出 NotImplementedError：从这里开始。"},
    "cli.not_run": {"en": "({count} more checks not run until this one works)",
                    "zh": "（另有 {count} 项检查在此项通过之前不会运行）"},
    "cli.score": {"en": "Score on the visible checks: {score:.2f} / {points:g} ({passed}/{total} checks passed, "
                        "{status})",
                  "zh": "公开检查得分：{score:.2f} / {points:g}（通过 {passed}/{total} 项检查，{status}）"},
    "cli.hints_title": {"en": "Hints for {id}:", "zh": "{id} 的提示："},
    "cli.what_to_do": {"en": "What to implement:", "zh": "需要实现的内容："},
    "cli.unknown_exercise": {"en": "no exercise {id!r}; known exercises: {known}",
                             "zh": "没有名为 {id!r} 的练习；已有的练习：{known}"},
    "cli.quiz_not_checkable": {
        "en": "the quiz has no function to check: answer in {file} of your package; it is graded when you submit",
        "zh": "小测验没有需要检查的函数：请在你的包中的 {file} 里作答，提交后评分"},
    "cli.no_package": {
        "en": "no package to check: pass --impl PATH, set ATTNLAB_IMPL, or set attnlab_impl under "
              "[tool.pytest.ini_options] in {root}/pyproject.toml",
        "zh": "找不到要检查的包：请使用 --impl PATH，设置 ATTNLAB_IMPL，或在 {root}/pyproject.toml 的 "
              "[tool.pytest.ini_options] 中设置 attnlab_impl"},
    "cli.not_a_package": {
        "en": "{path} is not a package directory: it has no __init__.py and none of the exercises' files "
              "({files}); check --impl / ATTNLAB_IMPL / attnlab_impl",
        "zh": "{path} 不是包目录：其中没有 __init__.py，也没有任何练习文件（{files}）；"
              "请检查 --impl / ATTNLAB_IMPL / attnlab_impl"},
    "cli.viz_written": {"en": "wrote {path}", "zh": "已写入 {path}"},
    "cli.viz_unsupported": {"en": "no picture for {id}: attnlab viz supports {supported}",
                            "zh": "{id} 没有可视化：attnlab viz 支持 {supported}"},
    "cli.viz_yours_failed": {"en": "your function could not be drawn: {problem}", "zh": "无法绘制你的函数：{problem}"},
    "cli.submit_written": {"en": "wrote {path}: {count} files of {package}/ and MANIFEST.json. Upload this zip.",
                           "zh": "已写入 {path}：{package}/ 中的 {count} 个文件以及 MANIFEST.json。请上传这个 zip。"},
    "cli.submit_skipped": {"en": "left out (not a regular file): {names}", "zh": "已跳过（不是普通文件）：{names}"},
}
