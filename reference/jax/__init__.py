"""The reference solutions in JAX: the same functions, arguments and docstrings as reference/, on jax.Array
(jax.numpy). student_template/jax/ is generated from these files."""
