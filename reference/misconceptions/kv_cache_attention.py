"""kv_cache_attention: known mistakes, one function per misconception id listed in spec/kv_cache_attention.yaml,
taking run_kv_cache_attention's arguments. Diagnosis runs them on a failing case's inputs and names the one whose output
the student's equals.
"""
