"""triton_flash_backward: what its cases' O and L are (the forward pass of their Q, K, V, as
triton_flash_forward returns it), and its laws, checked without the reference: the gradients equal autograd's
of attention computed in float64, and two identities hold whatever the inputs (the key gradients sum to 0 and
⟨dQ, Q⟩ = ⟨dK, K⟩). Few draws: each launch runs in Triton's interpreter on the CPU."""

import math

import torch

from attnlab.core.i18n import Message
from attnlab.core.laws import drawn, expect_close, law, noise
from attnlab.core.outcomes import CheckFailure

MESSAGES = {
    "not_gradient": {
        "en": "Q {q}, K {k}, is_causal={is_causal}: {name} differs from autograd's gradient of softmax(Q Kᵀ / √d) V "
              "computed in float64",
        "zh": "Q {q}，K {k}，is_causal={is_causal}：{name} 与 autograd 在 float64 中对 softmax(Q Kᵀ / √d) V "
              "求得的梯度不同"},
    "key_sum": {
        "en": "Q {q}, K {k}, is_causal={is_causal}: dK summed over the keys is {got:.6g} at {index}, not 0; adding the "
              "same vector to every key changes no softmax, so the key gradients sum to 0 (is D = rowsum(dO ∘ O) "
              "subtracted in dS = P ∘ (dP − D)?)",
        "zh": "Q {q}，K {k}，is_causal={is_causal}：dK 沿键求和在 {index} 处为 {got:.6g}，而不是 0；给每个键加上同一个"
              "向量不会改变任何 softmax，所以键的梯度之和为 0（dS = P ∘ (dP − D) 中减去 D = rowsum(dO ∘ O) 了吗？）"},
    "q_k_balance": {
        "en": "Q {q}, K {k}, is_causal={is_causal}: ⟨dQ, Q⟩ = {got:.8g} but ⟨dK, K⟩ = {expected:.8g}; scaling Q by c "
              "and K by 1/c leaves every score unchanged, so the two are equal (do dQ = dS K / √d and "
              "dK = dSᵀ Q / √d both carry the scale?)",
        "zh": "Q {q}，K {k}，is_causal={is_causal}：⟨dQ, Q⟩ = {got:.8g}，而 ⟨dK, K⟩ = {expected:.8g}；把 Q 乘以 c、"
              "K 除以 c 不改变任何分数，所以两者相等（dQ = dS K / √d 与 dK = dSᵀ Q / √d 都带有缩放了吗？）"},
}


def scaled_scores(Q: torch.Tensor, K: torch.Tensor, is_causal: bool) -> torch.Tensor:
    """Q Kᵀ / √d in float64, -inf where a query may not attend (bottom-right causal alignment)."""
    s = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if is_causal:
        queries, keys = s.shape[-2:]
        s = s.masked_fill(~torch.ones(queries, keys, dtype=torch.bool).tril(diagonal=keys - queries), float("-inf"))
    return s


def forward_output(args: dict) -> torch.Tensor:
    """O = softmax(Q Kᵀ / √d) V of the case's Q, K, V (float64; the case's recipe gives its dtype)."""
    return torch.softmax(scaled_scores(args["Q"], args["K"], args.get("is_causal", False)), -1) @ args["V"].double()


def forward_logsumexp(args: dict) -> torch.Tensor:
    """L = logsumexp(Q Kᵀ / √d) of the case's Q and K, what the forward kernel stores (float32)."""
    return torch.logsumexp(scaled_scores(args["Q"], args["K"], args.get("is_causal", False)), -1)


DERIVED = {"forward_output": forward_output, "forward_logsumexp": forward_logsumexp}


def _shapes() -> dict:
    from hypothesis import strategies as st

    return {"batch": st.integers(1, 2), "queries": st.integers(1, 40), "extra_keys": st.integers(0, 24),
            "d": st.sampled_from([16, 32]), "is_causal": st.booleans(), "seed": st.integers(0, 2**31)}


def _calls(name: str, examples: int) -> list[dict]:
    """Float32 Q, K, V, dO for the law's drawn shapes, with O and L their forward pass."""
    calls = []
    for e in drawn(name, examples):
        b, q, k, d, seed = e["batch"], e["queries"], e["queries"] + e["extra_keys"], e["d"], e["seed"]
        call = {"Q": noise(torch.empty(b, q, d), seed) * 1.5, "K": noise(torch.empty(b, k, d), seed + 1) * 1.5,
                "V": noise(torch.empty(b, k, d), seed + 2), "is_causal": e["is_causal"]}
        call.update(O=forward_output(call).float(), L=forward_logsumexp(call).float(),
                    dO=noise(torch.empty(b, q, d), seed + 3))
        calls.append(call)
    return calls


def _about(call: dict) -> dict:
    return {"q": tuple(call["Q"].shape), "k": tuple(call["K"].shape), "is_causal": call["is_causal"]}


@law(draws=_shapes)
def triton_flash_backward_equals_autograd(ctx, examples: int = 3) -> None:
    """dQ, dK, dV equal torch.autograd's gradients of softmax(Q Kᵀ / √d) V in float64 (judge side, not the
    submission), for drawn lengths (tiles that do not divide them)."""
    calls = _calls("triton_flash_backward_equals_autograd", examples)
    for call, grads in zip(calls, ctx.outputs(calls)):
        inputs = [call[name].double().requires_grad_() for name in ("Q", "K", "V")]
        out = torch.softmax(scaled_scores(inputs[0], inputs[1], call["is_causal"]), -1) @ inputs[2]
        expected = torch.autograd.grad(out, inputs, call["dO"].double())
        for name, got, want in zip(("dQ", "dK", "dV"), grads, expected):
            expect_close(ctx, got, want, Message("triton_flash_backward.not_gradient", {**_about(call), "name": name}))


@law(draws=_shapes)
def triton_flash_backward_identities(ctx, examples: int = 2) -> None:
    """Σ_j dK[j] = 0 (a shift of every key changes no softmax) and ⟨dQ, Q⟩ = ⟨dK, K⟩ (scaling Q by c and K by
    1/c changes no score), to float32's accuracy relative to the sums' terms."""
    calls = _calls("triton_flash_backward_identities", examples)
    for call, (dQ, dK, _) in zip(calls, ctx.outputs(calls)):
        total, bound = dK.double().sum(-2), 1e-4 * (1 + dK.double().abs().sum(-2))
        over = ~((total.abs()) <= bound)  # NaN counts as over
        if bool(over.any()):
            index = tuple(int(i) for i in over.nonzero()[0])
            raise CheckFailure("triton_flash_backward.key_sum", **_about(call), index=index, got=float(total[index]))
        terms_q, terms_k = dQ.double() * call["Q"].double(), dK.double() * call["K"].double()
        got, expected = float(terms_q.sum()), float(terms_k.sum())
        if not abs(got - expected) <= 1e-4 * (1 + float(terms_q.abs().sum()) + float(terms_k.abs().sum())):
            raise CheckFailure("triton_flash_backward.q_k_balance", **_about(call), got=got, expected=expected)
