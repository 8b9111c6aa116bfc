"""Acceptance package "seed002_modules_data": a correct solution in the style of seeds 001/002 (LLMs from
scratch ch. 3 in PyTorch). Attention lives in nn.Module classes as in the notes (SelfAttention_v2,
CausalAttention with a registered triu mask, masked_fill_ with -torch.inf and nn.Dropout(0.0),
MultiHeadAttentionWrapper over an nn.ModuleList, MultiHeadAttention with view/transpose/out_proj).
Every run_* builds the module and puts the given tensors into its layers with `layer.weight.data = ...`
(biases the same way), then calls it. Exercises the notes do not cover are written in their plain style.

The attention exercises: one run_* function per exercise id, in the module its spec names (`module:`),
called by keyword by the checks: run_softmax in softmax.py, run_causal_attention in attention.py, ...

(In reference/ these are the solutions; student_template/ is generated from them by removing the
marked solution blocks.)
"""
