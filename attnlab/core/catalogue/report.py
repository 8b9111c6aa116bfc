"""The class report."""

MESSAGES: dict[str, dict[str, str]] = {
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
    "report.not_graded": {"en": "not graded", "zh": "未评分"},
    "report.not_graded_count": {"en": "{count} not graded (no score: left out of these figures, listed below with the reason)", "zh": "{count} 份未评分（没有分数：不计入以上统计，下方列出原因）"},
    "report.unreadable": {"en": "{count} JSON file(s) in this directory are no readable result, and are left out of everything "
                                "below (grade.py regrades a submission whose result is broken when run again into this directory):",
                          "zh": "此目录中有 {count} 个 JSON 文件不是可读取的结果，以下各处均未计入（再次用 grade.py 评分到此目录时，结果损坏的提交会被重新评分）："},
    "report.mixed_checks": {
        "en": "These results were graded with different checks ({digests}): a rerun of grade.py after the specs, the "
              "reference, the grader or the limits changed did not finish, so like code may have been scored two "
              "ways. Run it again into this directory (it regrades the older ones) before using these scores.",
        "zh": "这些结果是用不同的检查评出的（{digests}）：规格、参考实现、评分程序或限制改变后的 grade.py 重新评分没有完成，"
              "因此相同的代码可能得到了两种分数。使用这些分数之前，请再次以此目录运行 grade.py（会重新评分较旧的结果）。"},
    "report.share": {"en": "share of submissions", "zh": "提交占比"},
    "report.contents": {"en": "Contents", "zh": "目录"},
    "report.overview": {"en": "Overview", "zh": "概览"},
    "report.item_analysis": {"en": "Item analysis: every case and law, worst first", "zh": "逐题分析：每个用例和性质，问题最大的在前"},
    "report.item_analysis_intro": {
        "en": "Each check is counted over the submissions whose code for its exercise ran (a stub, an import error "
              "or an error on every check says nothing about one check). Discrimination is the point-biserial "
              "correlation between passing the check and the total score: near 0 or below, the check does not "
              "separate stronger from weaker submissions, so read its instructions and its test again.",
        "zh": "每个检查只统计该练习的代码确实运行了的提交（未实现、导入出错或每个检查都出错的提交说明不了单个检查的问题）。"
              "区分度是“是否通过该检查”与总分之间的点二列相关系数：接近 0 或为负时，该检查无法区分较强和较弱的提交，"
              "请重新审视它的说明和测试。"},
    "report.check": {"en": "check", "zh": "检查"},
    "report.kind.case": {"en": "case", "zh": "用例"},
    "report.kind.property": {"en": "law", "zh": "性质"},
    "report.visible": {"en": "visible", "zh": "公开"},
    "report.hidden": {"en": "hidden", "zh": "隐藏"},
    "report.population": {"en": "code ran", "zh": "代码运行的提交"},
    "report.pass_rate": {"en": "pass rate", "zh": "通过率"},
    "report.difficulty": {"en": "difficulty", "zh": "难度"},
    "report.difficulty.easy": {"en": "easy", "zh": "容易"},
    "report.difficulty.medium": {"en": "medium", "zh": "中等"},
    "report.difficulty.hard": {"en": "hard", "zh": "困难"},
    "report.discrimination": {"en": "discrimination r", "zh": "区分度 r"},
    "report.concerns": {"en": "concern", "zh": "问题"},
    "report.flag.never": {"en": "no submission passes it: check the test and its instructions",
                          "zh": "没有任何提交通过：请检查该测试及其说明"},
    "report.flag.negative": {"en": "stronger submissions fail it more often than weaker ones",
                             "zh": "总分较高的提交反而更常失败"},
    "report.flag.hidden_gap": {"en": "hidden, and failed far more often than the exercise's visible checks: a rule "
                                     "students cannot see?",
                               "zh": "隐藏检查，失败比例远高于该练习的公开检查：是否有学生看不到的要求？"},
    "report.flag.weak": {"en": "hardly separates stronger from weaker submissions", "zh": "几乎区分不出强弱提交"},
    "report.gaps": {"en": "Visible versus hidden checks", "zh": "公开检查与隐藏检查"},
    "report.gaps_intro": {
        "en": "Mean pass rates of each exercise's visible and hidden checks, and the submissions that passed every "
              "visible check yet failed a hidden one: they saw 100 % on their own machine and still lost points.",
        "zh": "每个练习公开检查和隐藏检查的平均通过率，以及通过了全部公开检查却未通过某个隐藏检查的提交："
              "这些学生在本地看到 100 %，评分时仍被扣分。"},
    "report.visible_rate": {"en": "visible checks passed", "zh": "公开检查通过率"},
    "report.hidden_rate": {"en": "hidden checks passed", "zh": "隐藏检查通过率"},
    "report.gap": {"en": "gap", "zh": "差距"},
    "report.visible_only": {"en": "all visible passed, a hidden one failed", "zh": "公开检查全过、隐藏检查未过"},
    "report.misconceptions_title": {"en": "Misconceptions by exercise", "zh": "各练习的错误理解"},
    "report.misconceptions_intro": {
        "en": "Every misconception the checks diagnosed, with how many submissions show it and examples; each "
              "example links to that submission's full feedback below.",
        "zh": "检查诊断出的每一种错误理解：出现在多少份提交中，以及示例；每个示例都链接到下方该提交的完整反馈。"},
    "report.misconception": {"en": "misconception", "zh": "错误理解"},
    "report.examples": {"en": "examples", "zh": "示例"},
    "report.share_ran": {"en": "of those whose code ran", "zh": "占代码运行的提交"},
    "report.sections": {"en": "Feedback per submission", "zh": "每份提交的反馈"},
    "report.back": {"en": "back to the table", "zh": "返回提交列表"},
    "report.upload_error": {"en": "None of this submission could be graded:", "zh": "该提交完全无法评分："},
    "report.diagnosed": {"en": "diagnosed", "zh": "诊断"},
    "report.feedback": {"en": "feedback", "zh": "反馈"},
    "report.columns": {"en": "Columns", "zh": "各列"},
    "report.sort_hint": {"en": "Click a column heading to sort; click a name for its feedback.",
                         "zh": "点击列标题可排序；点击提交名称可查看其反馈。"},
    "report.chart.score_percent": {"en": "score (% of the maximum)", "zh": "得分（占满分的百分比）"},
    "report.chart.passed_percent": {"en": "% of submissions passing", "zh": "通过的提交（%）"},
    "report.chart.misconception_count": {"en": "submissions showing it", "zh": "出现该错误的提交数"},
    "report.misconception_chart": {"en": "Diagnosed misconceptions", "zh": "诊断出的错误理解"},
    "report.charts_in_english": {
        "en": "The charts are labelled in English: no CJK font is installed (e.g. Debian's fonts-noto-cjk).",
        "zh": "图表使用英文标注：本机未安装中文字体（例如 Debian 的 fonts-noto-cjk）。"},
    "report.feedback_lang": {"en": "Feedback is shown in the language it was graded in (grade.py --lang).",
                             "zh": "反馈以评分时的语言显示（grade.py --lang）。"},
    "report.none": {"en": "none", "zh": "无"},
    "report.no_checks": {"en": "These results carry no per-check outcomes (graded by an older grade.py): grade again "
                               "for item analysis.",
                         "zh": "这些结果不含逐项检查的结果（由较早版本的 grade.py 生成）：请重新评分以获得逐题分析。"},
}
