"""attention_backward: known mistakes, one function per misconception id listed in spec/attention_backward.yaml,
taking run_attention_backward's arguments. Diagnosis runs them on a failing case's inputs and names the one whose output
the student's equals.
"""
