"""The attention exercises: one run_* function per exercise id, called by keyword by the checks.

(In reference/ these are the solutions; student_template/ is generated from them by removing the
marked solution blocks.)
"""

from .attention import (
    run_causal_attention,
    run_causal_mask,
    run_dropout,
    run_scaled_dot_product_attention,
    run_self_attention,
    run_simple_self_attention,
)
from .multihead import (
    run_gpt2_causal_self_attention,
    run_multihead_attention_wrapper,
    run_multihead_self_attention,
)
from .rope import run_multihead_self_attention_with_rope, run_rope
from .softmax import run_softmax

__all__ = [
    "run_causal_attention",
    "run_causal_mask",
    "run_dropout",
    "run_gpt2_causal_self_attention",
    "run_multihead_attention_wrapper",
    "run_multihead_self_attention",
    "run_multihead_self_attention_with_rope",
    "run_rope",
    "run_scaled_dot_product_attention",
    "run_self_attention",
    "run_simple_self_attention",
    "run_softmax",
]
