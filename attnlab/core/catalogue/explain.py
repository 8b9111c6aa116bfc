"""How a score was reached, and the likely causes of a failed gradient law."""

MESSAGES: dict[str, dict[str, str]] = {
    "score_how": {
        "en": "How this scored: {passed} of {total} checks passed; {cases_passed} of {cases} cases earn "
              "{points:g} × {cases_passed}/{cases}{trivial}{laws}, so {score:.2f} / {points:g}",
        "zh": "得分计算：{total} 项检查通过 {passed} 项；{cases} 个用例中 {cases_passed} 个计分，得 "
              "{points:g} × {cases_passed}/{cases}{trivial}{laws}，即 {score:.2f} / {points:g}"},
    "score_how_laws": {
        "en": "; a failed law scales the case points by (1 + {laws_passed}/{laws}) / 2 = {factor:.2f} "
              "({laws_passed} of {laws} laws hold)",
        "zh": "；未满足的性质会按比例缩减用例得分：(1 + {laws_passed}/{laws}) / 2 = {factor:.2f}"
              "（{laws} 条性质中 {laws_passed} 条成立）"},
    "score_how_trivial": {
        "en": " (the {count} passed case(s) that an output of zeros would also pass count only once another "
              "case passes)",
        "zh": "（有 {count} 个通过的用例全零输出也能通过，只有在其他用例通过后才计分）"},
    "law_gradient_cause": {"en": "{what}: {detail}\n  {cause}", "zh": "{what}：{detail}\n  {cause}"},
    "cause_gradient_nan": {
        "en": "the gradient has NaN or inf values where the reference's is finite: a masked score set to -inf "
              "and then multiplied, or the exponential of scores not shifted by their maximum, makes 0 × inf "
              "in the backward pass; mask with a select (where) before the softmax and subtract the maximum",
        "zh": "梯度中有 NaN 或 inf，而参考梯度是有限的：把被屏蔽的分数设为 -inf 后再相乘，或对未减去最大值的分数取指数，"
              "都会在反向传播中产生 0 × inf；应在 softmax 之前用选择（where）屏蔽，并减去最大值"},
    "cause_gradient_zero": {
        "en": "the gradient is zero everywhere: the output does not depend on {name} through automatic "
              "differentiation (a detached or stop-gradient copy, a constant built from its values, or a "
              "round trip through NumPy or Python numbers cuts it)",
        "zh": "梯度处处为零：输出并未通过自动微分依赖于 {name}（被分离或停止梯度的副本、由其数值构造的常量，"
              "或经由 NumPy、Python 数值的转换都会切断它）"},
    "cause_gradient_scaled": {
        "en": "the gradient is the reference's times {factor}: a factor of the output (a scale or a "
              "normaliser) was computed outside automatic differentiation, so its derivative is missing",
        "zh": "梯度等于参考梯度乘以 {factor}：输出中的某个因子（缩放或归一化项）是在自动微分之外计算的，"
              "因此缺少它的导数"},
}
