"""Acceptance package "loops_float64": a correct solution written with explicit Python loops (over the
slices of a softmax, over query rows and (query, key) pairs, over heads, over RoPE pairs, over mask rows)
and all arithmetic in float64, cast back to the input's dtype at the end. No nn.Module: weights are used
directly as the given tensors (x @ W.T + b in float64).

The attention exercises: one run_* function per exercise id, in the module its spec names (`module:`),
called by keyword by the checks: run_softmax in softmax.py, run_causal_attention in attention.py, ...

(In reference/ these are the solutions; student_template/ is generated from them by removing the
marked solution blocks.)
"""
