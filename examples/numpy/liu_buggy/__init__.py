"""Your attention exercises in NumPy: one run_* function per exercise id, in the module the exercise names
(run_softmax in softmax.py, run_causal_attention in attention.py, ...), called by keyword by the checks.
`attnlab status` lists them, `attnlab hint <exercise>` says what each must do.
"""
