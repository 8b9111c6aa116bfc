"""The reference solutions in NumPy: the same functions, arguments and docstrings as reference/, on
numpy.ndarray. student_template/numpy/ is generated from these files."""
