"""Acceptance package "seed004_einops": a correct solution in the CS336 style of seed 004. Scaled dot-product
attention with torch.einsum and a masked_fill(mask == 0.0, -inf), run_softmax in every attention; a custom
`Linear` module (weight (out, in), einops.einsum); the notes' `Multihead_self_attention` module
(einops.rearrange to split/merge heads, einx.rearrange for default positions) and a
`RotaryPositionalEmbedding(nn.Module)` with precomputed cos/sin buffers. Each run_* is a CS336-style
adapter: it builds the modules on the input's device and dtype and loads the given weights with
`module.load_state_dict({...})`. (The notes' causal mask is viewed to (1, 1, seq, seq); here it stays
(seq, seq), so that inputs without a batch dim keep their shape.)

The attention exercises: one run_* function per exercise id, in the module its spec names (`module:`),
called by keyword by the checks: run_softmax in softmax.py, run_causal_attention in attention.py, ...

(In reference/ these are the solutions; student_template/ is generated from them by removing the
marked solution blocks.)
"""
