"""Acceptance package "seed002_modules_state_dict": a correct solution in the style of seeds 001/002 (LLMs
from scratch ch. 3 in PyTorch): SelfAttention_v2, CausalAttention (registered triu mask, masked_fill_
with -torch.inf, nn.Dropout(0.0)), MultiHeadAttentionWrapper (nn.ModuleList) and MultiHeadAttention
(view/transpose/out_proj), here written for any number of leading batch dims. Weights are loaded the
CS336-adapter way: each run_* builds the module, moves it to the input's dtype and device and calls
`module.load_state_dict({...})` with the given tensors (the registered mask buffer is kept from the
module's own state_dict). Exercises the notes do not cover are written in their plain style.

The attention exercises: one run_* function per exercise id, in the module its spec names (`module:`),
called by keyword by the checks: run_softmax in softmax.py, run_causal_attention in attention.py, ...

(In reference/ these are the solutions; student_template/ is generated from them by removing the
marked solution blocks.)
"""
