"""Notebooks: a notebook handed in instead of a package (attnlab.core.notebook_source), and errors in its cells."""

MESSAGES: dict[str, dict[str, str]] = {
    "exception_in_cell": {"en": " (at cell {cell}, line {line})", "zh": "（位于第 {cell} 个单元格第 {line} 行）"},
    "notebook.too_big": {"en": "{file} is {mb} MB, over the {limit} MB a notebook may be: clear its outputs "
                               "(Edit → Clear all outputs), save it and hand it in again",
                         "zh": "{file} 有 {mb} MB，超过了笔记本的上限 {limit} MB：请清除输出（编辑 → 清除所有输出），保存后重新提交"},
    "notebook.not_json": {"en": "{file} is not a notebook: its JSON is invalid ({problem}); save it again from "
                                "Jupyter or Colab (File → Download .ipynb)",
                          "zh": "{file} 不是有效的笔记本：JSON 格式错误（{problem}）；请在 Jupyter 或 Colab 中重新保存（文件 → 下载 .ipynb）"},
    "notebook.not_notebook": {"en": "{file} is JSON but not a Jupyter notebook (no nbformat number or no list of cells)",
                              "zh": "{file} 是 JSON 文件，但不是 Jupyter 笔记本（缺少 nbformat 版本号或单元格列表）"},
    "notebook.old_format": {"en": "{file} is in nbformat {version}, older than the nbformat 4 that Jupyter and "
                                  "Colab save: open it in Jupyter, save it, and hand it in again",
                            "zh": "{file} 的格式是 nbformat {version}，早于 Jupyter 和 Colab 保存的 nbformat 4：请在 Jupyter 中打开并保存后重新提交"},
    "notebook.too_many_cells": {"en": "{file} has {count} cells; a notebook may have at most {limit}",
                                "zh": "{file} 有 {count} 个单元格；笔记本最多只能有 {limit} 个"},
    "notebook.too_much_code": {"en": "{file}: its code cells hold more than {limit} MB of code",
                               "zh": "{file}：代码单元格中的代码超过了 {limit} MB"},
    "notebook.no_functions": {"en": "{file} defines no run_* function in any of its {cells} code cells: hand in "
                                    "the notebook you worked in, with the exercise cells",
                              "zh": "{file} 的 {cells} 个代码单元格中没有定义任何 run_* 函数：请提交你完成练习的那个笔记本"},
    "notebook.module_written": {"en": "cell {cell}: `%%writefile {file}` makes {file} one of your package's modules, "
                                      "as it is in your notebook's folder (imports of it find it there)",
                                "zh": "第 {cell} 个单元格：`%%writefile {file}` 使 {file} 成为你的包中的一个模块，"
                                      "与它在笔记本所在文件夹中一样（导入它的语句会在那里找到它）"},
    "notebook.dropped": {"en": "cell {cell}, line {line}: `{code}` is not run at grading (IPython magics and "
                               "shell escapes are dropped)",
                         "zh": "第 {cell} 个单元格第 {line} 行：`{code}` 在评分时不会运行（IPython 魔法命令和 shell 命令会被去掉）"},
    "notebook.not_offered": {"en": "cell {cell}, line {line}: `{code}` is not run at grading ({name} is not offered in "
                                   "this course), nor what uses what it imports",
                             "zh": "第 {cell} 个单元格第 {line} 行：`{code}` 在评分时不会运行（本课程不提供 {name}），"
                                   "用到它所导入内容的语句也不会运行"},
    "notebook.not_offered_part": {"en": "cell {cell}, line {line}: `{code}` runs at grading as `{kept}` ({name} is not "
                                        "offered in this course), and what uses {name} is not run",
                                  "zh": "第 {cell} 个单元格第 {line} 行：`{code}` 在评分时按 `{kept}` 运行（本课程不提供 "
                                        "{name}），用到 {name} 的语句不会运行"},
    "notebook.uses_dropped": {"en": "cell {cell}, line {line}: `{code}` is not run at grading (it uses {name}, which "
                                    "is not run at grading)",
                              "zh": "第 {cell} 个单元格第 {line} 行：`{code}` 在评分时不会运行（它用到了评分时不会运行的 {name}）"},
    "notebook.dropped_cell": {"en": "cell {cell}: the `{code}` cell is not run at grading (cell magics are dropped)",
                              "zh": "第 {cell} 个单元格：`{code}` 单元格在评分时不会运行（单元格魔法命令会被去掉）"},
    "notebook.several": {"en": "no package, and several notebooks or zip files inside ({found}): hand in one notebook "
                               "or one package",
                         "zh": "没有找到包，但其中有多个笔记本或 zip 文件（{found}）：请只提交一个笔记本或一个包"},
    "nb.start_here": {"en": "{function} still raises NotImplementedError: write it in its cell above, run that cell, then this one.",
                      "zh": "{function} 仍然抛出 NotImplementedError：在上方它的单元格中实现它，运行那个单元格，再运行这一个。"},
    "report.nb_cell": {"en": "cell {cell}", "zh": "第 {cell} 个单元格"},
    "report.nb_summary": {"en": "Graded from the notebook {file}: its {count} code cells",
                          "zh": "根据笔记本 {file} 评分：其 {count} 个代码单元格"},
    "student.notebook_read": {"en": "{file}, read as grading reads it: its {count} code cells in order, in a fresh "
                                    "process, without what grading does not run:",
                              "zh": "{file}，按评分时的方式读取：其 {count} 个代码单元格按顺序在新进程中运行，"
                                    "不含评分时不运行的内容："},
    "student.submit_no_notebook": {"en": "{path}: no such notebook", "zh": "{path}：没有这个笔记本"},
    "student.submit_bad_notebook": {"en": "grading could not read this notebook: {problem}",
                                    "zh": "评分时无法读取这个笔记本：{problem}"},
    "student.submit_notebook_written": {"en": "wrote {path} (the notebook {notebook} and MANIFEST.json): upload it",
                                        "zh": "已生成 {path}（笔记本 {notebook} 和 MANIFEST.json）：请上传它"},
    # the handout's notebooks (attnlab.instructor.notebooks)
    "nbh.intro": {
        "en": "# {title}\n\n"
              "This notebook is the assignment ({points} points), one exercise at a time, in {framework}: read what each "
              "function must do, write it in the cell under the explanation, and run the `check(...)` cell after it. "
              "`check` runs the visible checks of `attnlab check` and shows the same feedback: which case failed, where, "
              "by how much, and the mistake it looks like. Grading adds hidden checks on fresh inputs.\n\n"
              "**Setup.** Run the next cell once per kernel. *Jupyter*: start Jupyter in the handout folder (the one "
              "holding this notebook and `pyproject.toml`), in the environment the handout's README sets up. *Colab*: "
              "upload the handout folder zipped as `handout.zip` (Files panel, on the left), remove the `#` before the "
              "two Colab lines of the next cell, and run it (Colab already has torch).\n\n"
              "**Grading.** Hand in this `.ipynb` (see the end). Your code cells run in order from the top in a fresh "
              "process, as *Run all* does: outputs are ignored, `%` and `!` lines and `check(...)` calls are skipped, "
              "so are imports of libraries the course does not offer (matplotlib for a plot, say) and what uses "
              "them, and an error names its cell (\"cell 14\": the 14th cell from the top, text cells included). Keep each "
              "`run_*` function's name and arguments.",
        "zh": "# {title}\n\n"
              "本笔记本就是这次作业（共 {points} 分），用 {framework} 逐个完成练习：阅读每个函数的要求，在说明下方的单元格中实现它，"
              "然后运行其后的 `check(...)` 单元格。`check` 运行与 `attnlab check` 相同的公开检查，给出相同的反馈：哪个用例失败、"
              "错在哪里、差多少，以及可能的错误原因。评分时还会在新的输入上运行隐藏检查。\n\n"
              "**准备。** 每个内核运行一次下一个单元格。*Jupyter*：在讲义文件夹（包含本笔记本和 `pyproject.toml` 的文件夹）中、"
              "在讲义 README 配置好的环境里启动 Jupyter。*Colab*：把讲义文件夹压缩为 `handout.zip` 上传（左侧“文件”面板），"
              "删去下一个单元格中两行 Colab 命令前的 `#` 后运行（Colab 已自带 torch）。\n\n"
              "**评分。** 提交这个 `.ipynb` 文件（见文末）。你的代码单元格会在新的进程中从上到下依次运行，如同“全部运行”："
              "输出被忽略，以 `%` 和 `!` 开头的行、`check(...)` 调用、导入本课程未提供的库（例如画图用的 matplotlib）的语句及用到它们的语句都会被跳过，出错时会指明单元格（“第 14 个单元格”：从上往下数，"
              "文本单元格也计入）。请保持每个 `run_*` 函数的名称和参数不变。"},
    "nbh.install": {
        "en": "# Installs what the handout's checks need into this notebook's Python (once per kernel).\n"
              "# Colab only: upload handout.zip, then remove the # before the next two lines.\n"
              "# !unzip -q -o handout.zip -d /content\n# %cd /content/handout\n%pip install -q {requirements}",
        "zh": "# 把讲义的检查所需的包安装到本笔记本的 Python 中（每个内核运行一次）。\n"
              "# 仅限 Colab：上传 handout.zip 后，删去下面两行前的 #。\n"
              "# !unzip -q -o handout.zip -d /content\n# %cd /content/handout\n%pip install -q {requirements}"},
    "nbh.setup_comment": {"en": "# The checks, and what the exercises use.", "zh": "# 检查函数，以及各练习用到的模块。"},
    "nbh.exercise": {"en": "## {number}. {title} (`{id}`, {points} points)", "zh": "## {number}. {title}（`{id}`，{points} 分）"},
    "nbh.hints": {"en": "**Hints**", "zh": "**提示**"},
    "nbh.quiz": {"en": "## Quiz: {title} ({points} points)\n\nAnswer in the cell below and run it: it writes your answers "
                       "to `{file}`. Grading reads them from this cell as data (the cell is not run).",
                 "zh": "## 小测验：{title}（{points} 分）\n\n在下面的单元格中作答并运行它：答案会写入 `{file}`。"
                       "评分时把这个单元格的内容作为数据读取（不会运行它）。"},
    "nbh.hand_in": {
        "en": "## Hand in\n\nSave this notebook (Colab: File → Download → Download .ipynb) and upload the `.ipynb` file as "
              "it is, or zip it with a manifest: `!python -m attnlab.student.cli submit --notebook <this file>` in the "
              "handout folder. Hand in either this notebook or the `{package}/` package, not both: an upload holding "
              "the package is graded from the package. Before you do, save it and run `!python -m attnlab.student.cli "
              "status --impl <this file>`: it runs the notebook's code cells as grading does, top to bottom in a "
              "fresh process, and says what grading will not run.",
        "zh": "## 提交\n\n保存本笔记本（Colab：文件 → 下载 → 下载 .ipynb），直接上传这个 `.ipynb` 文件；或在讲义文件夹中运行 "
              "`!python -m attnlab.student.cli submit --notebook <本文件>`，生成带清单的 zip。只提交本笔记本或 `{package}/` 包"
              "之一，不要两者都交：上传内容中有包时，按包评分。提交前请先保存，再运行 `!python -m attnlab.student.cli status "
              "--impl <本文件>`：它像评分时那样在新进程中从上到下运行笔记本的代码单元格，并说明哪些内容评分时不会运行。"},
}
