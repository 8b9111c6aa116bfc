"""Known misconceptions, reproduced exactly: one module per exercise id, one function per misconception id.

Each function takes the exercise's run_* keyword arguments and returns what a student holding that
misconception returns. harness/diagnose.py runs the ones a spec lists (`misconceptions:`) on the inputs
of a failing case; when one matches the student's output within tolerance, the feedback names it
("Likely cause: ..."). tests/mutations/ holds a buggy submission for every id, so each one is exercised.
"""
