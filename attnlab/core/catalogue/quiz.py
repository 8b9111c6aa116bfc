"""The quiz."""

MESSAGES: dict[str, dict[str, str]] = {
    "quiz_line": {"en": "quiz · {id}: {prompt} — {verdict}", "zh": "小测验 · {id}：{prompt} — {verdict}"},
    "quiz_not_answered": {"en": "not answered", "zh": "未作答"},
    "quiz_wrong": {"en": "your answer {given} is not right", "zh": "你的答案 {given} 不正确"},
    "quiz_not_a_number": {"en": "{given} is not a number (write e.g. 64, 0.5 or 2,360,064)",
                          "zh": "{given} 不是数字（请写成 64、0.5 或 2,360,064 这样的形式）"},
    "quiz_not_a_choice": {"en": "{given} is not one of the choices {keys} (write the key shown before the ')')",
                          "zh": "{given} 不是选项 {keys} 之一（请填写 “)” 前面的选项字母）"},
    "quiz_format_line": {"en": "{file}: {id}: {problem}", "zh": "{file}：{id}：{problem}"},
    "quiz_unknown_ids": {"en": "{file}: not questions of the quiz (typo?): {ids}",
                         "zh": "{file}：这些不是小测验的题目（拼写错误？）：{ids}"},
    "quiz_file_unreadable": {"en": "{file} is not valid YAML: {problem}", "zh": "{file} 不是有效的 YAML：{problem}"},
    "quiz_file_no_answers": {"en": "{file} has no `answers:` mapping (copy it again from student_template/)",
                             "zh": "{file} 中没有 `answers:` 映射（请从 student_template/ 重新复制）"},
    "quiz_file_too_big": {"en": "{file} is larger than {kb} KB", "zh": "{file} 大于 {kb} KB"},
}
