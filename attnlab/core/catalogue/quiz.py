"""The quiz."""

MESSAGES: dict[str, dict[str, str]] = {
    "quiz_line": {"en": "quiz · {id}: {prompt} — {verdict}", "zh": "小测验 · {id}：{prompt} — {verdict}"},
    "quiz_not_answered": {"en": "not answered", "zh": "未作答"},
    "quiz_wrong": {"en": "your answer {given} is not right", "zh": "你的答案 {given} 不正确"},
}
