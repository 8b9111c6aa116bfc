"""What a framework adapter says about an array it cannot hand to the checks (attnlab.core.frameworks)."""

MESSAGES: dict[str, dict[str, str]] = {
    "unreadable_dtype": {
        "en": "{function} returned a {array_type} of dtype {dtype}, which the checks cannot read: return the "
              "input's dtype (float16, float32, float64 or bfloat16; bool or int64 where the exercise says so)",
        "zh": "{function} 返回了 dtype 为 {dtype} 的 {array_type}，检查无法读取：请返回与输入相同的 dtype"
              "（float16、float32、float64 或 bfloat16；练习要求时为 bool 或 int64）"},
}
