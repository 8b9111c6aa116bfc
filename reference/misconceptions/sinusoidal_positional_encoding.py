"""sinusoidal_positional_encoding: known mistakes, one function per misconception id listed in spec/sinusoidal_positional_encoding.yaml,
taking run_sinusoidal_positional_encoding's arguments. Diagnosis runs them on a failing case's inputs and names the one whose output
the student's equals.
"""
