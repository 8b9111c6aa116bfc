"""The catalogue of every sentence the harness says (see attnlab.core.i18n). Keys are stable; each entry
has "en" and "zh". Sections: feedback on checks; what a call of student code can end with; laws; the
quiz; status words; the `attnlab` command; uploads and the grader; the class report; pictures.
"""

CATALOGUE: dict[str, dict[str, str]] = {
    # -- feedback on checks ------------------------------------------------------------------------
    "case_header": {"en": "{exercise} · case {case}", "zh": "{exercise} · 用例 {case}"},
    "property_header": {"en": "{exercise} · property {name}", "zh": "{exercise} · 性质 {name}"},
    "inputs": {"en": "inputs: {shapes}", "zh": "输入：{shapes}"},
    "mismatch": {
        "en": "{bad} of {total} values outside tolerance; max abs error {err:.3g} at index {index}: "
              "got {got:.6g}, expected {expected:.6g} (atol={atol:g}, rtol={rtol:g}, {dtype})",
        "zh": "{total} 个值中有 {bad} 个超出容差；最大绝对误差 {err:.3g}，位置 {index}："
              "得到 {got:.6g}，期望 {expected:.6g}（atol={atol:g}，rtol={rtol:g}，{dtype}）"},
    "nan": {"en": "your output contains {count} NaN/inf values where the expected output is finite (first at "
                  "index {index})",
            "zh": "输出中有 {count} 个 NaN/inf，而期望值是有限数（第一个位于 {index}）"},
    "dtype": {"en": "returned dtype {got}, expected {expected} (the input's dtype must be preserved)",
              "zh": "返回的 dtype 为 {got}，应为 {expected}（必须保持输入的 dtype）"},
    "device": {"en": "returned a tensor on {got}, expected {expected} (same device as the input)",
               "zh": "返回张量位于 {got}，应位于 {expected}（与输入相同的设备）"},
    "modified": {"en": "your function modified its input(s) {names} in place; work on new tensors instead",
                 "zh": "你的函数原地修改了输入 {names}；请在新张量上计算"},
    "alias": {"en": "your function returned its input {name} itself; return a new tensor",
              "zh": "你的函数直接返回了输入 {name}；请返回新的张量"},
    "shape_mismatch": {"en": "{name} returned{dtype} {got}, expected {expected}{known}",
                       "zh": "{name} 返回了{dtype} {got}，期望 {expected}{known}"},
    "shape_with": {"en": " with {dims}", "zh": "，其中 {dims}"},
    "diagnosis": {"en": "Likely cause: {message}", "zh": "可能的原因：{message}"},
    "hint": {"en": "Hint: {hint}", "zh": "提示：{hint}"},
    "tolerance_why": {"en": "Tolerance: {why}", "zh": "容差说明：{why}"},
    "property_failed": {"en": "property '{name}' does not hold: {detail}", "zh": "性质 “{name}” 不成立：{detail}"},
    "passed": {"en": "passed", "zh": "通过"},
    "more_failures": {"en": "(+{count} more)", "zh": "（另有 {count} 项）"},
    "summary_title": {"en": "attnlab: points by exercise ({impl})", "zh": "attnlab：各练习得分（{impl}）"},
    "total": {"en": "total", "zh": "总计"},
    "col_exercise": {"en": "exercise", "zh": "练习"},
    "col_status": {"en": "status", "zh": "状态"},
    "col_checks": {"en": "checks", "zh": "检查"},
    "col_points": {"en": "points", "zh": "得分"},

    # -- what a call of student code can end with ---------------------------------------------------
    "forbidden_call": {"en": "{exercise}: the forbidden call {call} was used",
                       "zh": "{exercise}：使用了禁止的调用 {call}"},
    "not_a_package": {"en": "{path} is not a package: it has no __init__.py (copy student_template/)",
                      "zh": "{path} 不是一个包：其中没有 __init__.py（请复制 student_template/）"},
    "import_failed": {"en": "importing {what} failed: {problem}", "zh": "导入 {what} 失败：{problem}"},
    "function_missing": {"en": "{function} is missing from {module}.py", "zh": "{module}.py 中缺少 {function}"},
    "exception": {"en": "{type}: {message}{where}", "zh": "{type}: {message}{where}"},
    "exception_at": {"en": " (at {file}:{line})", "zh": "（位于 {file}:{line}）"},
    "not_implemented": {"en": "{exercise}: not implemented yet ({detail})", "zh": "{exercise}：尚未实现（{detail}）"},
    "exercise_problem": {"en": "{exercise}: {problem}", "zh": "{exercise}：{problem}"},
    "raised": {"en": "{exercise}: your function raised {problem}", "zh": "{exercise}：你的函数抛出了 {problem}"},
    "not_a_tensor": {"en": "{function} returned {got}, expected a torch.Tensor",
                     "zh": "{function} 返回了 {got}，应返回 torch.Tensor"},
    "not_differentiable": {
        "en": "{function}'s output is not differentiable (was it detached, or built with .data / numpy?)",
        "zh": "{function} 的输出不可微（是否被 detach，或用 .data / numpy 构造？）"},
    "vjp_shape": {"en": "{function} returned shape {got}, expected {expected}",
                  "zh": "{function} 返回的形状为 {got}，应为 {expected}"},
    "backward_failed": {"en": "{exercise}: backward through your function failed: {problem}",
                        "zh": "{exercise}：对你的函数做反向传播失败：{problem}"},
    "only_this_function": {"en": "only {given} was given to check(), not {function}",
                           "zh": "check() 只得到了 {given}，没有 {function}"},
    "raw": {"en": "{text}", "zh": "{text}"},
    "library_not_in_course": {
        "en": "your code imports {package} ({file}), which is not available in this course: it offers {offered} and "
              "Python's standard library",
        "zh": "你的代码导入了 {package}（{file}），本课程不提供该包：可用的有 {offered} 以及 Python 标准库"},

    # -- laws (the generic ones; an exercise's own laws bring their sentences in spec/<id>.py) ----------
    "law_detail": {"en": "{what}: {detail}", "zh": "{what}：{detail}"},
    "law_causality": {"en": "changing tokens {first}..{last} (the future) changed outputs at positions 0..{upto}",
                      "zh": "改变第 {first}..{last} 个词元（未来）后，位置 0..{upto} 的输出改变了"},
    "law_permutation_invariant": {"en": "permuting {names} by {perm} did not leave the output unchanged",
                                  "zh": "按 {perm} 置换 {names} 后，输出没有保持不变"},
    "law_permutation_equivariant": {"en": "permuting {names} by {perm} did not permute the output the same way",
                                    "zh": "按 {perm} 置换 {names} 后，输出没有以相同方式置换"},
    "law_gradient": {"en": "the gradient with respect to {name}", "zh": "对 {name} 的梯度"},
    "law_gradient_unreached": {
        "en": "no gradient reaches {name}: the output does not depend on it through autograd",
        "zh": "没有梯度传到 {name}：输出并未通过自动求导依赖于它"},
    "hint_gradient_unreached": {
        "en": "gradients must flow from the output back to the arguments: a tensor copied into a module with "
              ".data, load_state_dict or nn.Parameter(...) is a new leaf and receives no gradient, and "
              ".detach(), torch.no_grad() or a NumPy round trip cut the graph; computing with the arguments "
              "themselves (F.linear(x, W), x @ W.T) keeps it",
        "zh": "梯度必须能从输出传回参数：用 .data、load_state_dict 或 nn.Parameter(...) 复制进模块的张量是新的叶子节点，"
              "收不到梯度；.detach()、torch.no_grad() 或经由 NumPy 转换都会切断计算图；直接用参数本身计算"
              "（F.linear(x, W)、x @ W.T）才能保留"},
    "law_gradient_no_reference": {
        "en": "not run: no reference gradients for case {case} here (neither reference/ nor its fixture)",
        "zh": "未运行：此处没有用例 {case} 的参考梯度（既没有 reference/，也没有其 fixture）"},

    # -- the quiz -------------------------------------------------------------------------------------
    "quiz_line": {"en": "quiz · {id}: {prompt} — {verdict}", "zh": "小测验 · {id}：{prompt} — {verdict}"},
    "quiz_not_answered": {"en": "not answered", "zh": "未作答"},
    "quiz_wrong": {"en": "your answer {given} is not right", "zh": "你的答案 {given} 不正确"},

    # -- status words ---------------------------------------------------------------------------------
    "status.passed": {"en": "passed", "zh": "通过"},
    "status.failed": {"en": "failed", "zh": "未通过"},
    "status.not_implemented": {"en": "not implemented", "zh": "未实现"},
    "status.error": {"en": "error", "zh": "出错"},
    "status.forbidden": {"en": "forbidden call", "zh": "使用了禁止的调用"},
    "status.timeout": {"en": "timeout", "zh": "超时"},
    "status.overloaded": {"en": "machine overloaded", "zh": "机器过载"},
    "status.memory": {"en": "out of memory", "zh": "内存超限"},
    "status.not_applicable": {"en": "not applicable", "zh": "不适用"},
    "status.not_run": {"en": "not run", "zh": "未运行"},

    # -- the `attnlab` command ------------------------------------------------------------------------
    "cli.case": {"en": "case", "zh": "用例"},
    "cli.property": {"en": "property", "zh": "性质"},
    "cli.status_title": {"en": "attnlab status: visible checks of {package}",
                         "zh": "attnlab status：{package} 的公开检查"},
    "cli.total": {"en": "total (visible checks)", "zh": "总计（公开检查）"},
    "cli.quiz_status": {"en": "answered {answered}/{total}", "zh": "已作答 {answered}/{total}"},
    "cli.quiz_later": {"en": "graded when you submit", "zh": "提交后评分"},
    "cli.hidden_note": {"en": "When you submit, grade.py also runs hidden cases on fresh random inputs.",
                        "zh": "提交后，grade.py 还会用新的随机输入运行隐藏用例。"},
    "cli.next": {"en": "Next: {id} ({title}). Run `attnlab check {id}` or `attnlab hint {id}`.",
                 "zh": "下一步：{id}（{title}）。运行 `attnlab check {id}` 或 `attnlab hint {id}`。"},
    "cli.all_done": {"en": "Every visible check passes. Run `attnlab submit` to make your upload.",
                     "zh": "所有公开检查均已通过。运行 `attnlab submit` 生成要上传的文件。"},
    "cli.import_failed": {"en": "Your package does not import, so every check fails: {problem}",
                          "zh": "你的包无法导入，因此所有检查都会失败：{problem}"},
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
        "en": "{path} is not a package directory (no __init__.py); check --impl / ATTNLAB_IMPL / attnlab_impl",
        "zh": "{path} 不是包目录（没有 __init__.py）；请检查 --impl / ATTNLAB_IMPL / attnlab_impl"},
    "cli.viz_written": {"en": "wrote {path}", "zh": "已写入 {path}"},
    "cli.viz_unsupported": {"en": "no picture for {id}: attnlab viz supports {supported}",
                            "zh": "{id} 没有可视化：attnlab viz 支持 {supported}"},
    "cli.viz_yours_failed": {"en": "your function could not be drawn: {problem}", "zh": "无法绘制你的函数：{problem}"},
    "cli.submit_written": {"en": "wrote {path}: {count} files of {package}/ and MANIFEST.json. Upload this zip.",
                           "zh": "已写入 {path}：{package}/ 中的 {count} 个文件以及 MANIFEST.json。请上传这个 zip。"},
    "cli.submit_skipped": {"en": "left out (not a regular file): {names}", "zh": "已跳过（不是普通文件）：{names}"},

    # -- uploads and the grader (feedback in results) ---------------------------------------------------
    "upload.symlink": {"en": "symlinks are not allowed in a submission: {path}", "zh": "提交中不允许符号链接：{path}"},
    "upload.empty": {"en": "the submission is empty", "zh": "提交为空"},
    "upload.no_package": {"en": "no __init__.py found: submit the package directory laid out like student_template/",
                          "zh": "没有找到 __init__.py：请提交与 student_template/ 结构相同的包目录"},
    "upload.name_not_utf8": {"en": "zip entry name is not UTF-8: {name}", "zh": "zip 条目名不是 UTF-8：{name}"},
    "upload.escapes": {"en": "zip entry escapes the submission: {name}", "zh": "zip 条目越出了提交目录：{name}"},
    "upload.zip_symlink": {"en": "zip entry is a symlink: {name}", "zh": "zip 条目是符号链接：{name}"},
    "upload.bad_zip": {"en": "not a readable zip file: {problem}", "zh": "不是可读取的 zip 文件：{problem}"},
    "upload.too_many_entries": {"en": "the zip has {count} entries (at most {limit})",
                                "zh": "zip 中有 {count} 个条目（最多 {limit} 个）"},
    "upload.too_big": {"en": "the zip inflates to more than {mb} MB", "zh": "zip 解压后超过 {mb} MB"},
    "upload.bomb": {"en": "zip entry {name} inflates suspiciously (zip bomb?)",
                    "zh": "zip 条目 {name} 的解压比例异常（zip 炸弹？）"},
    "upload.missing": {"en": "{path} does not exist", "zh": "{path} 不存在"},
    "upload.not_dir_or_zip": {"en": "{path} is neither a directory nor a .zip file", "zh": "{path} 既不是目录也不是 .zip 文件"},
    "upload.failed": {"en": "submission {name}: {problem}", "zh": "提交 {name}：{problem}"},
    "upload.not_a_directory": {"en": "submission {path} is not a directory", "zh": "提交 {path} 不是目录"},
    "upload.too_many_files": {"en": "submission {path} has more than {limit} files",
                              "zh": "提交 {path} 中的文件超过 {limit} 个"},
    "upload.too_large": {"en": "submission {path} is larger than {mb} MB", "zh": "提交 {path} 大于 {mb} MB"},
    "upload.cannot_copy": {"en": "cannot copy the submission {path}: {problem}", "zh": "无法复制提交 {path}：{problem}"},
    "grade.cpu_limit": {"en": "{exercise}: used more than its {seconds:g} s of CPU time (the time limit)",
                        "zh": "{exercise}：CPU 时间超过了 {seconds:g} 秒（时间限制）"},
    "grade.import_cpu_limit": {"en": "importing the submission used more than {seconds:g} s of CPU time",
                               "zh": "导入提交所用的 CPU 时间超过了 {seconds:g} 秒"},
    "grade.import_idle_limit": {
        "en": "importing the submission did not finish after {seconds:g} s, though it computed for only {cpu:.1f} s: "
              "it was waiting (sleep, input that never comes?)",
        "zh": "导入提交在 {seconds:g} 秒后仍未完成，但只计算了 {cpu:.1f} 秒：它一直在等待（sleep、永远不会到来的输入？）"},
    "grade.import_overloaded": {
        "en": "importing the submission did not finish after {seconds:g} s of wall-clock time, most of it spent "
              "waiting for a CPU: the grading machine was overloaded, which is not your code's doing; it will be "
              "graded again",
        "zh": "导入提交在 {seconds:g} 秒的墙钟时间后仍未完成，其中大部分时间在等待 CPU：评分机器过载，"
              "这不是你的代码造成的；它会被重新评分"},
    "grade.idle_limit": {
        "en": "{exercise}: not finished after {seconds:g} s, though it computed for only {cpu:.1f} s: it was waiting "
              "(sleep, a lock, input that never comes?)",
        "zh": "{exercise}：{seconds:g} 秒后仍未结束，但只计算了 {cpu:.1f} 秒：它一直在等待（sleep、锁、永远不会到来的输入？）"},
    "grade.overloaded": {
        "en": "{exercise}: not finished after {seconds:g} s of wall-clock time, most of it spent waiting for a CPU "
              "({cpu:.1f} s computed): the grading machine was overloaded, which is not your code's doing; it "
              "will be graded again",
        "zh": "{exercise}：{seconds:g} 秒的墙钟时间后仍未结束，其中大部分时间在等待 CPU（计算了 {cpu:.1f} 秒）："
              "评分机器过载，这不是你的代码造成的；它会被重新评分"},
    "grade.protocol": {"en": "{exercise}: runner protocol violation: {detail}", "zh": "{exercise}：运行器协议违规：{detail}"},
    "grade.killed": {"en": "{exercise}: the runner was killed (SIGKILL), most likely out of memory",
                     "zh": "{exercise}：运行器被杀死（SIGKILL），很可能是内存不足"},
    "grade.crashed": {"en": "{exercise}: crashed (signal {signal}, {name})", "zh": "{exercise}：崩溃（信号 {signal}，{name}）"},
    "grade.exited": {"en": "{exercise}: the runner exited with status {code} (sys.exit or os._exit?)",
                     "zh": "{exercise}：运行器以状态 {code} 退出（sys.exit 或 os._exit？）"},
    "grade.out_of_memory": {"en": "{exercise}: out of memory ({detail})", "zh": "{exercise}：内存不足（{detail}）"},
    "grade.bad_request": {"en": "bad request ({detail})", "zh": "错误的请求（{detail}）"},
    "grade.cannot_return": {"en": "{exercise}: cannot return this result: {detail}",
                            "zh": "{exercise}：无法返回此结果：{detail}"},
    "grade.inplace_reshaped": {"en": "your function changed the shape or dtype of its input {name} in place",
                               "zh": "你的函数原地改变了输入 {name} 的形状或 dtype"},
    "grade.tail": {"en": "--- last output of your code ---", "zh": "--- 你的代码最后的输出 ---"},

    # -- the class report -------------------------------------------------------------------------------
    "report.title": {"en": "attnlab class report", "zh": "attnlab 班级报告"},
    "report.source": {"en": "Results in", "zh": "结果目录"},
    "report.submissions": {"en": "submissions", "zh": "份提交"},
    "report.mean": {"en": "mean", "zh": "平均"},
    "report.median": {"en": "median", "zh": "中位数"},
    "report.histogram": {"en": "Scores", "zh": "总分分布"},
    "report.pass_rates": {"en": "Pass rate by exercise", "zh": "各练习通过率"},
    "report.exercise": {"en": "exercise", "zh": "练习"},
    "report.passed": {"en": "passed", "zh": "通过"},
    "report.mean_score": {"en": "mean score", "zh": "平均得分"},
    "report.statuses": {"en": "other statuses", "zh": "其他状态"},
    "report.misconceptions": {"en": "Most frequent misconceptions", "zh": "最常见的错误理解"},
    "report.no_misconceptions": {"en": "none diagnosed", "zh": "未诊断出"},
    "report.table": {"en": "Submissions", "zh": "提交列表"},
    "report.submission": {"en": "submission", "zh": "提交"},
    "report.score": {"en": "score", "zh": "得分"},
    "report.count": {"en": "submissions", "zh": "提交数"},
    "report.share": {"en": "share of submissions", "zh": "提交占比"},

    # -- pictures (attnlab viz) -----------------------------------------------------------------------
    "viz.yours": {"en": "yours", "zh": "你的实现"},
    "viz.reference": {"en": "reference", "zh": "参考实现"},
    "viz.head": {"en": "head", "zh": "头"},
    "viz.key": {"en": "key position", "zh": "键位置"},
    "viz.query": {"en": "query position", "zh": "查询位置"},
    "viz.diff": {"en": "max |diff|", "zh": "最大差"},
    "viz.missing": {"en": "no reference picture here", "zh": "此处没有参考图"},
}
