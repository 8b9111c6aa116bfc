"""Acceptance package "seed000_nanogpt": a correct solution in the style of seed 000 (nanoGPT). The mask and
single-head exercises use seed 000's `wei` recipe (tril of ones, masked_fill(tril == 0, float('-inf')),
F.softmax, wei @ v); the multi-head exercises use nanoGPT's CausalSelfAttention (fused c_attn, c_proj,
register_buffer("bias", torch.tril(...).view(1, 1, T, T)), split/view/transpose(1, 2)) with a GPTConfig
dataclass, and a Karpathy-style Head/MultiHeadAttention (nn.ModuleList, torch.cat) for the wrapper. Weights
are loaded as nanoGPT's from_pretrained does: `with torch.no_grad(): sd[k].copy_(tensor)` on the module's
state_dict, after moving the module to the input's dtype and device. RoPE uses the complex-number recipe
(torch.polar, view_as_complex). run_softmax never calls a library softmax.

The attention exercises: one run_* function per exercise id, in the module its spec names (`module:`),
called by keyword by the checks: run_softmax in softmax.py, run_causal_attention in attention.py, ...

(In reference/ these are the solutions; student_template/ is generated from them by removing the
marked solution blocks.)
"""
