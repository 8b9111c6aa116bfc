"""Pictures (attnlab viz)."""

MESSAGES: dict[str, dict[str, str]] = {
    "viz.yours": {"en": "yours", "zh": "你的实现"},
    "viz.reference": {"en": "reference", "zh": "参考实现"},
    "viz.head": {"en": "head", "zh": "头"},
    "viz.key": {"en": "key position", "zh": "键位置"},
    "viz.query": {"en": "query position", "zh": "查询位置"},
    "viz.diff": {"en": "max |diff|", "zh": "最大差"},
    "viz.missing": {"en": "no reference picture here", "zh": "此处没有参考图"},
    "viz.shape_differs": {"en": "your picture has shape {yours}, the reference's {reference}",
                          "zh": "你的图形状为 {yours}，参考实现的为 {reference}"},
}
