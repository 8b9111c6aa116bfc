"""The student's tools beyond the `attnlab` command's own sentences: time limits and Ctrl-C, quiz format
checks, the pytest plugin's compact report, the notebook's results, problems said once."""

MESSAGES: dict[str, dict[str, str]] = {
    "student.interrupted": {"en": "attnlab {command}: interrupted", "zh": "attnlab {command}：已中断"},
    "student.same_failure": {"en": "({count} more checks failed the same way)",
                             "zh": "（另有 {count} 项检查以同样的方式失败）"},
    "same_problem_as": {"en": "fails with the same problem as {id} (see its feedback)",
                             "zh": "失败原因与 {id} 相同（见其反馈）"},
    # attnlab status / submit: the quiz's answers file
    "student.quiz_answered": {"en": "answered", "zh": "已作答"},
    "student.quiz_partly": {"en": "partly answered", "zh": "部分作答"},
    "student.quiz_unanswered": {"en": "not answered", "zh": "未作答"},
    "student.quiz_to_fix": {"en": "format problem", "zh": "格式有误"},
    "student.quiz_problems": {"en": "Quiz answers to fix (they would score nothing):",
                              "zh": "需要修改的小测验答案（否则不得分）："},
    "student.submit_unanswered": {"en": "warning: {file}: {count} of {total} questions not answered: {ids}",
                                  "zh": "警告：{file}：{total} 道题中有 {count} 道未作答：{ids}"},
    "student.name_from_option": {"en": "from --name", "zh": "来自 --name"},
    "student.name_from_git": {"en": "from user.email in this repository's git config",
                              "zh": "来自本仓库 git 配置中的 user.email"},
    "student.name_from_login": {"en": "your login name", "zh": "你的登录名"},
    "student.submit_module_case": {
        "en": "warning: there is no {expected}, but there is {found}: Python's imports compare names exactly, so at "
              "grading {exercises} would score nothing; rename it to {expected}",
        "zh": "警告：没有 {expected}，但有 {found}：Python 的导入严格区分文件名的大小写，评分时 {exercises} 将得 0 分；"
              "请将其重命名为 {expected}"},
    "student.submit_renamed": {
        "en": "warning: {function}({theirs}) in {module}.py cannot be called as the checks call it, with the stub's "
              "parameters ({stub}) by name, so {exercise} would score nothing at grading; keep the stub's parameters",
        "zh": "警告：{module}.py 中的 {function}({theirs}) 无法按检查的方式调用（按名称传入存根的参数 {stub}），"
              "因此评分时 {exercise} 将得 0 分；请保留存根的参数"},
    "student.submit_malformed": {"en": "warning: {problem}", "zh": "警告：{problem}"},
    "student.submit_no_package": {"en": "{path} is not your package: it has no .py file",
                                  "zh": "{path} 不是你的包：其中没有任何 .py 文件"},
    "student.submit_too_many": {"en": "{path} has {count} files; an upload may hold at most {limit}",
                                "zh": "{path} 中有 {count} 个文件；上传最多只能包含 {limit} 个"},
    "student.submit_too_big": {
        "en": "{path} holds {mb} MB; an upload may hold at most {limit} MB (remove data files and checkpoints)",
        "zh": "{path} 共 {mb} MB；上传最多只能有 {limit} MB（请删除数据文件和检查点）"},
    "student.submit_inside": {"en": "{path} would be inside the package it zips; run attnlab submit from elsewhere",
                              "zh": "{path} 会位于被打包的包内；请在其他目录运行 attnlab submit"},
    # pytest
    "student.not_implemented_row": {"en": "{id}: not implemented yet ({function} in {module}.py)",
                                    "zh": "{id}：尚未实现（{module}.py 中的 {function}）"},
    "student.not_implemented_word": {"en": "not implemented", "zh": "未实现"},
    "student.not_run_after": {"en": "not run: {check} of {id} ended as {status}",
                              "zh": "未运行：{id} 的 {check} 的结果为 {status}"},
    "student.not_run_same": {"en": "the same problem as {where} above", "zh": "与上面 {where} 的问题相同"},
    "student.quiz_later": {"en": "the quiz is graded when you submit ({state})",
                           "zh": "小测验在提交后评分（{state}）"},
    # notebook: what the returned object shows when printed as a value
    "student.nb_result": {"en": "<{id}: {status}, {score:.2f} / {points:g} points; .status .score .checks .feedback>",
                          "zh": "<{id}：{status}，{score:.2f} / {points:g} 分；.status .score .checks .feedback>"},
    "student.nb_hint": {"en": "<hints for {id}: print(...) or str(...) for the text>",
                        "zh": "<{id} 的提示：用 print(...) 或 str(...) 查看文字>"},
    # callees.noted: an exercise built on the student's own broken function
    "callee_failing": {
        "en": "Fix {first} first: {function} calls your {callees}, which fails its own checks, so the failures "
              "below may come from it rather than from {function}.",
        "zh": "请先修好 {first}：{function} 调用了你的 {callees}，而它自己的检查未通过，所以下面的失败可能源于它，"
              "而不是 {function} 本身。"},
    "callees_failing": {
        "en": "Fix {first} first: {function} calls your {callees}, which fail their own checks, so the failures "
              "below may come from them rather than from {function}.",
        "zh": "请先修好 {first}：{function} 调用了你的 {callees}，它们自己的检查未通过，所以下面的失败可能源于它们，"
              "而不是 {function} 本身。"},
}
