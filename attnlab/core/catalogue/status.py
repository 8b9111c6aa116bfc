"""Status words (attnlab.core.status.Status values)."""

MESSAGES: dict[str, dict[str, str]] = {
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
    "status.internal_error": {"en": "grader error", "zh": "评分器内部错误"},
}
