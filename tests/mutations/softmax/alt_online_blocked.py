"""Online softmax over blocks of the normalised axis (as in FlashAttention): pass 1 keeps a running max and
a running sum rescaled whenever the max grows; pass 2 normalises each block. Equal to exp(x - max) / sum."""

import torch

BLOCK = 4  # elements per chunk of the normalised axis


def run_softmax(in_features, dim):
    x = in_features.movedim(dim, -1)  # (..., n): normalise the last axis
    running_max = x.new_full((*x.shape[:-1], 1), float("-inf"))
    running_sum = x.new_zeros((*x.shape[:-1], 1))
    for chunk in x.split(BLOCK, dim=-1):  # pass 1
        new_max = torch.maximum(running_max, chunk.amax(dim=-1, keepdim=True))
        rescale = torch.exp(running_max - new_max)  # old terms were summed relative to the old max
        running_sum = running_sum * rescale + torch.exp(chunk - new_max).sum(dim=-1, keepdim=True)
        running_max = new_max
    blocks = [torch.exp(chunk - running_max) / running_sum for chunk in x.split(BLOCK, dim=-1)]  # pass 2
    return torch.cat(blocks, dim=-1).movedim(-1, dim)
