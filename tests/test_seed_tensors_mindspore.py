"""Seed 001's printed tensors, reproduced with MindSpore itself on the CPU through reference/mindspore/.

Seed 001 ran on Ascend with MindSpore 2.1. What reproduces here: everything computed from the printed inputs
(§3.3), and everything built from nn.Dense cells after mindspore.set_seed (§3.4.2 SelfAttention_v2, §3.5.1,
§3.5.3 CausalAttention, §3.6.1 MultiHeadAttentionWrapper, §3.6.2 MultiHeadAttention): nn.Dense draws its
initial weights on the host, so the same seed gives the same weights on any device, and the outputs agree to
float32 rounding (§3.6.2 to 1e-4: its out_proj's bias add ran in Ascend's arithmetic). What cannot: the
values of `Parameter(ops.rand(...))` (§3.4.1 query_2 = [0.7817213 1.2208791], attn_score_22, §3.4.2
SelfAttention_v1) and nn.Dropout's masks (§3.5.2), which come from the device's random kernel: on the CPU
the same seed draws other numbers. Printed values have 8 significant digits; tolerances follow from that.
"""

import numpy as np
import pytest

from attnlab.core import frameworks

pytestmark = pytest.mark.skipif(not frameworks.adapter("mindspore").available(),
                                reason="mindspore is not installed here (scripts/venv-mindspore makes .venv-mindspore)")

INPUTS = [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],  # Your journey starts
          [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]  # with one step
PRINTED = 2e-7  # 8 significant digits of values below 2.3, plus float32 rounding


@pytest.fixture(scope="module")
def ms():
    frameworks.adapter("mindspore").prepare()  # PyNative on the CPU, as the runner has it
    import mindspore

    return mindspore


def close(got, printed, atol=PRINTED):
    np.testing.assert_allclose(got.asnumpy(), np.array(printed), rtol=0, atol=atol)


def dense_weights(ms, count: int, d_in: int = 3, d_out: int = 2):
    """The weights of `count` nn.Dense(d_in, d_out, has_bias=False) cells, created in order as seed 001's
    classes create them."""
    return [ms.nn.Dense(d_in, d_out, has_bias=False).weight.value() for _ in range(count)]


def test_seed001_mindspore_simple_self_attention(ms):
    # §3.3.1: one query's scores and nn.Softmax(axis=0); §3.3.2: all scores, weights, context vectors
    from reference.mindspore.attention import run_simple_self_attention
    from reference.mindspore.softmax import run_softmax

    inputs = ms.Tensor(INPUTS)
    scores = ms.ops.matmul(inputs, inputs.T)
    close(scores[1], [0.95440006, 1.4950001, 1.4754001, 0.8434, 0.707, 1.0865])
    close(run_softmax(scores[1], dim=0), [0.13854758, 0.2378913, 0.23327403, 0.1239916, 0.10818186, 0.15811361])
    close(run_softmax(scores, dim=-1)[4], [0.15261085, 0.19583867, 0.19749065, 0.13668668, 0.18785892, 0.12951429])
    close(run_simple_self_attention(inputs), [
        [0.44205937, 0.5930985, 0.578989], [0.44186574, 0.651482, 0.56830883], [0.44312754, 0.6495946, 0.5670731],
        [0.43038973, 0.6298281, 0.55102706], [0.46710178, 0.5909928, 0.5265966], [0.41772446, 0.6503232, 0.56453526]])


def test_seed001_mindspore_self_attention_v2_and_its_causal_weights(ms):
    # §3.4.2 SelfAttention_v2 after mindspore.set_seed(789); §3.5.1 its causal attention weights
    from reference.mindspore.attention import run_causal_mask, run_self_attention
    from reference.mindspore.softmax import run_softmax

    ms.set_seed(789)
    w_query, w_key, w_value = dense_weights(ms, 3)
    inputs = ms.Tensor(INPUTS)
    close(run_self_attention(3, 2, w_query, w_key, w_value, inputs), [
        [-0.15587379, -0.36927402], [-0.14788963, -0.37355042], [-0.1478706, -0.37344784],
        [-0.14899006, -0.3725437], [-0.14874612, -0.37055266], [-0.14906609, -0.37363836]])
    scores = ms.ops.matmul(ms.ops.matmul(inputs, w_query.T), ms.ops.matmul(inputs, w_key.T).T)
    close(scores[5], [-0.05454344, 0.06860979, 0.06592514, 0.05948692, -0.00110114, 0.08682943])
    masked = ms.ops.masked_fill(scores, ~run_causal_mask(6), float("-inf"))
    weights = run_softmax(masked / 2**0.5, dim=-1)
    close(weights[1], [0.47387412, 0.5261259, 0, 0, 0, 0])
    close(weights[4], [0.18921505, 0.20118913, 0.20107657, 0.20741759, 0.20110166, 0])


CAUSAL_ROWS = [[0.6989094, -0.01063734], [0.8213648, -0.19209932], [0.8643445, -0.25795853],
               [0.7828231, -0.2632103], [0.7394768, -0.25754046], [0.71951777, -0.26029873]]


def test_seed001_mindspore_causal_attention(ms):
    # §3.5.3 CausalAttention(d_in=3, d_out=2, dropout=0.0) after mindspore.set_seed(123), on a batch of two
    from reference.mindspore.attention import run_causal_attention

    ms.set_seed(123)
    w_query, w_key, w_value = dense_weights(ms, 3)
    batch = ms.ops.stack((ms.Tensor(INPUTS), ms.Tensor(INPUTS)), axis=0)
    close(run_causal_attention(3, 2, w_query, w_key, w_value, batch), [CAUSAL_ROWS, CAUSAL_ROWS])


def test_seed001_mindspore_multihead_attention_wrapper(ms):
    # §3.6.1 MultiHeadAttentionWrapper(num_heads=2) after mindspore.set_seed(123): head 0 is §3.5.3's
    from reference.mindspore.multihead import run_multihead_attention_wrapper

    ms.set_seed(123)
    heads = [dense_weights(ms, 3) for _ in range(2)]  # [[W_query, W_key, W_value], ...]
    q, k, v = (ms.ops.stack([head[i] for head in heads]) for i in range(3))
    batch = ms.ops.stack((ms.Tensor(INPUTS), ms.Tensor(INPUTS)), axis=0)
    out = run_multihead_attention_wrapper(3, 2, 2, q, k, v, batch)
    close(out[0, :, :2], CAUSAL_ROWS)
    close(out[1, :, 2:], [[-0.17242233, -0.48101062], [-0.04481881, -0.56809145], [-0.00637956, -0.5930796],
                          [0.0329925, -0.5441511], [-0.037752, -0.46404293], [0.02741851, -0.4850085]])


def test_seed001_mindspore_multihead_attention(ms):
    # §3.6.2 MultiHeadAttention(d_out=2, num_heads=2) after mindspore.set_seed(123): W_query, W_key, W_value,
    # then out_proj = nn.Dense(2, 2) with its bias
    from reference.mindspore.multihead import run_multihead_self_attention

    ms.set_seed(123)
    w_query, w_key, w_value = dense_weights(ms, 3)
    out_proj = ms.nn.Dense(2, 2)
    batch = ms.ops.stack((ms.Tensor(INPUTS), ms.Tensor(INPUTS)), axis=0)
    out = run_multihead_self_attention(2, 2, w_query, w_key, w_value, out_proj.weight.value(), batch,
                                       out_proj.bias.value())
    close(out[1], [[0.4280353, -0.37687036], [0.5089066, -0.27590883], [0.53542113, -0.240248],
                   [0.49657658, -0.26393646], [0.47636172, -0.27834752], [0.46696284, -0.28471702]], atol=2e-4)


def test_seed001_mindspore_heads_as_a_batch(ms):
    # §3.6.2: a @ transpose(a, (0, 1, 3, 2)) multiplies each head's matrix by its own transpose
    a = ms.Tensor([[[[0.2745, 0.6584, 0.2775, 0.8573], [0.8993, 0.0390, 0.9268, 0.7388],
                     [0.7179, 0.7058, 0.9156, 0.4340]],
                    [[0.0772, 0.3565, 0.1479, 0.5331], [0.4066, 0.2318, 0.4545, 0.9737],
                     [0.4606, 0.5159, 0.4220, 0.5786]]]])
    product = a @ ms.ops.transpose(a, (0, 1, 3, 2))
    close(product[0, 0], [[1.3208103, 1.1630957, 1.2879095], [1.1630957, 2.2150452, 1.842351],
                          [1.2879095, 1.842351, 2.0402133]], atol=4e-7)
    close(product[0, 1, 2], [0.59034216, 1.0620474, 0.99116707])
