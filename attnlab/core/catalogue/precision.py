"""What the precision diagnosis says (attnlab.core.precision): a float64 result with float32's error."""

MESSAGES: dict[str, dict[str, str]] = {
    "diagnosis_float32_precision": {
        "en": "your float64 output has float32 precision (it is off by float32 rounding, about 1e-7 relative, "
              "and is otherwise right): some step is computed in float32 and the result cast back, e.g. a "
              "softmax of scores cast to float32 (the Llama/Mistral idiom), a float32 constant, mask or buffer",
        "zh": "你的 float64 输出只有 float32 的精度（误差约为 1e-7 相对误差，恰是 float32 的舍入误差，其余都正确）："
              "某一步是在 float32 中计算后再转换回来的，例如把分数转成 float32 再做 softmax（Llama/Mistral 的写法），"
              "或者使用了 float32 的常量、掩码或缓冲区"},
    "hint_float32_precision": {
        "en": "keep the input's dtype through every step: upcasting bfloat16 or float16 to float32 (for the "
              "softmax) is fine, but rounding float64 down to float32 loses precision; cast to "
              "the wider of the two dtypes, or make constants and masks in the input's dtype",
        "zh": "每一步都保持输入的 dtype：把 bfloat16 或 float16 提升到 float32（用于 softmax）没有问题，"
              "但把 float64 降为 float32 会损失精度；应转换为两者中更宽的 dtype，或按输入的 dtype 创建常量和掩码"},
}
