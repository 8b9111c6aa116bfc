"""Feedback on checks: case and law failures, shapes, dtypes, hints, the points table."""

MESSAGES: dict[str, dict[str, str]] = {
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
    "hint_dtype": {"en": "an operand of another dtype changes the result's: a float64 value anywhere in the computation "
                         "(a NumPy array, a NumPy scalar such as np.sqrt(d_k) where math.sqrt(d_k) keeps float32, a "
                         "float64 table of angles) makes it float64, and a conversion to float32 makes a float64 "
                         "input's result float32. Compute in the precision you like, then cast the result back to "
                         "{name}'s dtype before returning it",
                   "zh": "不同 dtype 的操作数会改变结果的 dtype：计算中任何一处 float64 的值（NumPy 数组、np.sqrt(d_k) "
                         "这样的 NumPy 标量（math.sqrt(d_k) 则保持 float32）、float64 的角度表）都会让结果变成 float64，"
                         "而转成 float32 会让 float64 输入的结果变成 float32。可以用你想要的精度计算，但返回前要把"
                         "结果转回 {name} 的 dtype"},
    "device": {"en": "returned a tensor on {got}, expected {expected} (same device as the input)",
               "zh": "返回张量位于 {got}，应位于 {expected}（与输入相同的设备）"},
    "hint_leading_dims": {
        "en": "every input your function raised on has {counts} leading dimension(s) before (…, seq, d), and every "
              "one it ran on has {works}. The stub takes any number (none, as in (seq, d), or several, as in "
              "(batch, heads, seq, d)): if your code is written for (batch, seq, d) alone, count dimensions from "
              "the end (shape[-2], swapping the last two axes, concatenating on axis -1) instead of unpacking "
              "`b, n, d = x.shape` or swapping axes 1 and 2",
        "zh": "你的函数报错的输入都有 {counts} 个前导维（…, seq, d 之前），能运行的输入都有 {works} 个。桩函数接受任意多个"
              "前导维（可以没有，如 (seq, d)；也可以有多个，如 (batch, heads, seq, d)）：如果你的代码只为 (batch, seq, d) "
              "编写，请从末尾数维度（shape[-2]、交换最后两个轴、在 axis -1 上拼接），不要用 `b, n, d = x.shape` 解包或交换"
              "第 1、2 轴"},
    "modified": {"en": "your function modified its input(s) {names} in place; work on new tensors instead",
                 "zh": "你的函数原地修改了输入 {names}；请在新张量上计算"},
    "hint_modified": {"en": "an augmented assignment (x /= s, x += y), assigning into a slice (x[...] = v), an in-place "
                            "method or an out= argument changes the array the caller passed in; compute a new one "
                            "instead (x = x / s)",
                      "zh": "复合赋值（x /= s、x += y）、对切片赋值（x[...] = v）、原地方法或 out= 参数会改动调用者传入的"
                            "数组；请改为生成新数组（x = x / s）"},
    "not_run_device": {"en": "{exercise}: not run on {device}: this machine has no such device",
                       "zh": "{exercise}：未在 {device} 上运行：这台机器没有该设备"},
    "not_applicable_gradient": {"en": "not applicable in {framework}: it has no automatic differentiation",
                                "zh": "在 {framework} 中不适用：它没有自动微分"},
    "not_applicable_triton": {"en": "{exercise}: not applicable in {framework}: it is written as Triton kernels, "
                                    "which work on torch tensors; its {points:g} points are left out of this "
                                    "assignment's total",
                              "zh": "{exercise}：在 {framework} 中不适用：它要写成 Triton 内核，而 Triton 内核只处理 torch "
                                    "张量；它的 {points:g} 分不计入本次作业的总分"},
    "not_applicable_dtype": {"en": "not applicable in {framework}: it has no {dtype} here",
                             "zh": "在 {framework} 中不适用：此处不支持 {dtype}"},
    "output_named": {"en": "{name}: {detail}", "zh": "{name}：{detail}"},
    "returned_count": {"en": "{function} returned {got} tensor(s), expected {expected}: ({names})",
                       "zh": "{function} 返回了 {got} 个张量，应返回 {expected} 个：（{names}）"},
    "hint_returned_count": {"en": "{function} returns several tensors, as one tuple in this order: "
                                  "`return {names}`",
                            "zh": "{function} 要返回多个张量，按此顺序组成一个元组：`return {names}`"},
    "alias": {"en": "your function returned its input {name} itself; return a new tensor",
              "zh": "你的函数直接返回了输入 {name}；请返回新的张量"},
    "shape_mismatch": {"en": "{name} returned{dtype} {got}, expected {expected}{known}",
                       "zh": "{name} 返回了{dtype} {got}，期望 {expected}{known}"},
    "shape_with": {"en": " with {dims}", "zh": "，其中 {dims}"},
    "hint_returned_extra": {"en": "{function} returns {count} values, and the first of them has the shape it should "
                                  "return alone. If the others are the attention weights (as many tutorials return "
                                  "them), return only the output: `return output`, not `return output, weights`.",
                            "zh": "{function} 返回了 {count} 个值，其中第一个正是它应单独返回的形状。如果其余的是注意力"
                                  "权重（许多教程这样返回），请只返回输出：写 `return output`，而不是 `return output, "
                                  "weights`。"},
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
}
