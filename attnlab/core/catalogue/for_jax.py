"""What grading JAX code says that no other framework needs to (attnlab.core.frameworks.for_jax)."""

MESSAGES: dict[str, dict[str, str]] = {
    "hint_jax_gradient": {
        "en": "gradients must flow from the output back to the arguments: jax.lax.stop_gradient or a NumPy round "
              "trip (np.asarray, .tolist(), float()) cuts what jax.grad can follow; compute with jnp on the "
              "arguments themselves (x @ W.T, jnp.exp(x))",
        "zh": "梯度必须能从输出传回参数：jax.lax.stop_gradient 或经由 NumPy 转换（np.asarray、.tolist()、float()）"
              "会切断 jax.grad 能追踪的计算；请直接对参数本身用 jnp 计算（x @ W.T、jnp.exp(x)）"},
}
