"""Acceptance package "seed003_modules": a correct solution in the style of seed 003 (the SelfAttention and
MultiHeadAttention classes with w_q, w_k, w_v, w_o, torch.matmul and math.sqrt scaling), with the seed's
MultiHeadAttention FIXED: the heads are moved in front of the sequence axis (transpose(1, 2)) before
Q·Kᵀ and moved back before they are merged. Both classes take an optional attention_mask (1 = may
attend) for the causal exercises, and MultiHeadAttention an optional RoPE (rotate-half recipe of the
notes' source, sin/cos repeat_interleave). Weights are loaded by replacing the layers' parameters:
`layer.weight = nn.Parameter(tensor)` (a missing bias: `layer.bias = None`). run_softmax uses logsumexp.

The attention exercises: one run_* function per exercise id, in the module its spec names (`module:`),
called by keyword by the checks: run_softmax in softmax.py, run_causal_attention in attention.py, ...

(In reference/ these are the solutions; student_template/ is generated from them by removing the
marked solution blocks.)
"""
