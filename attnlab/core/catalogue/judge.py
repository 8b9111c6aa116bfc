"""What the judge says when a student's output is not what a check can read, and when its own code fails
(attnlab.core.internal)."""

MESSAGES: dict[str, dict[str, str]] = {
    "internal_check": {
        "en": "{exercise} · {name}: the grader could not finish this check ({type} in the grader's own code, not "
              "in yours); it counts as not passed, your other results stand, and the course staff have the details "
              "to regrade it",
        "zh": "{exercise} · {name}：评分器未能完成这项检查（评分器自身的代码出现 {type}，不是你的代码）；"
              "该项暂记为未通过，其他结果不受影响，课程人员已获得详细信息，可以重新评分"},
    "internal_submission": {
        "en": "the grader failed on this submission ({type} in the grader's own code, not in yours): no exercise "
              "could be graded; the course staff have the details to regrade it",
        "zh": "评分器在处理本次提交时出错（评分器自身的代码出现 {type}，不是你的代码）：没有练习能够评分；"
              "课程人员已获得详细信息，可以重新评分"},
    "output_layout": {
        "en": "{function} returned a {kind} tensor, which holds no values the checks can read: return an ordinary "
              "dense tensor with its values (on a real device)",
        "zh": "{function} 返回了{kind}张量，其中没有检查能够读取的值：请返回包含数值的普通稠密张量（位于真实设备上）"},
    "layout_sparse": {"en": "sparse", "zh": "稀疏"},
    "layout_meta": {"en": "meta (shape only)", "zh": "meta（只有形状）"},
    "layout_quantized": {"en": "quantized", "zh": "量化"},
    "compare_shape": {
        "en": "has shape {got}, expected {expected}",
        "zh": "形状为 {got}，应为 {expected}"},
    "compare_dtype": {
        "en": "has dtype {got}, expected real numbers (a floating-point dtype)",
        "zh": "dtype 为 {got}，应为实数（浮点 dtype）"},
    "picture_shape": {
        "en": "your picture has shape {got}, expected {expected}",
        "zh": "你的图形状为 {got}，应为 {expected}"},
    "picture_values": {
        "en": "your output holds {count} NaN/inf value(s), drawn blank",
        "zh": "你的输出中有 {count} 个 NaN/inf 值，图中显示为空白"},
}
