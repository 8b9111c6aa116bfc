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
    "report.share": {"en": "share of submissions", "zh": "提交占比"},
}
