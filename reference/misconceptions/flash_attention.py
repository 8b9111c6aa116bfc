"""Wrong FlashAttention forwards: the online softmax's rescaling forgotten, L without the max, causal tiles
skipped or masked wrongly, the last partial key tile dropped."""

from reference.misconceptions._flash import flash


def accumulator_not_rescaled(Q, K, V, is_causal=False, block_q=16, block_k=16):
    """l is rescaled by exp(m_old − m_new) when the max grows, the accumulator acc is not."""
    return flash(Q, K, V, is_causal, block_q, block_k, rescale_acc=False)


def nothing_rescaled(Q, K, V, is_causal=False, block_q=16, block_k=16):
    """Neither l nor acc is rescaled: each tile's exp(s − m_new) is added to sums taken against older maxima."""
    return flash(Q, K, V, is_causal, block_q, block_k, rescale_acc=False, rescale_sum=False)


def lse_without_max(Q, K, V, is_causal=False, block_q=16, block_k=16):
    """L = log l: the log of the sum of exp(s − m), without adding the max m back."""
    return flash(Q, K, V, is_causal, block_q, block_k, lse_with_max=False)


def causal_tiles_skipped_early(Q, K, V, is_causal=False, block_q=16, block_k=16):
    """Key tiles are visited only up to the query tile's FIRST position, not its last."""
    return flash(Q, K, V, is_causal, block_q, block_k, skip_after="first_query")


def causal_mask_local_indices(Q, K, V, is_causal=False, block_q=16, block_k=16):
    """Every visited tile is masked with tril(ones(bq, bk)) in the tile's own row and column indices."""
    return flash(Q, K, V, is_causal, block_q, block_k, local_mask=True)


def causal_top_left(Q, K, V, is_causal=False, block_q=16, block_k=16):
    """Query i masked as position i (torch's is_causal) when there are fewer queries than keys."""
    return flash(Q, K, V, is_causal, block_q, block_k, top_left=True)


def last_key_tile_dropped(Q, K, V, is_causal=False, block_q=16, block_k=16):
    """Only full key tiles are visited (keys // block_k of them): the remainder keys are never seen."""
    return flash(Q, K, V, is_causal, block_q, block_k, full_key_tiles_only=True)
