"""Block-local attention: cuts the sequence into chunks of `window` tokens and attends causally inside each
chunk, so the first token of a chunk sees only itself. A sliding window moves with every query."""

import math

import torch

DIAGNOSIS = "blocks_not_sliding"


def run_sliding_window_attention(Q, K, V, window):
    T = Q.shape[-2]
    block = torch.arange(T) // window
    same_block = block[:, None] == block[None, :]
    allowed = same_block & torch.ones(T, T, dtype=torch.bool).tril()
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ V
