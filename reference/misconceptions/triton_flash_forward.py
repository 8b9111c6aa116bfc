"""Wrong FlashAttention-2 kernels, computed in tiles of 16 queries × 16 keys (the tiles a kernel's tl.dot needs
at least): the same slips as flash_attention's (reference/misconceptions/_flash.py), as a kernel makes them."""

from reference.misconceptions._flash import flash

TILE = 16


def accumulator_not_rescaled(Q, K, V, is_causal=False):
    """l is rescaled by exp(m_old − m_new) when the max grows, acc is not."""
    return flash(Q, K, V, is_causal, TILE, TILE, rescale_acc=False)


def lse_without_max(Q, K, V, is_causal=False):
    """L = log l, without the max m."""
    return flash(Q, K, V, is_causal, TILE, TILE, lse_with_max=False)


def causal_top_left(Q, K, V, is_causal=False):
    """Query i masked as position i although there are fewer queries than keys."""
    return flash(Q, K, V, is_causal, TILE, TILE, top_left=True)


def causal_tiles_skipped_early(Q, K, V, is_causal=False):
    """Key tiles visited only up to the query tile's first position."""
    return flash(Q, K, V, is_causal, TILE, TILE, skip_after="first_query")


def last_key_tile_dropped(Q, K, V, is_causal=False):
    """Only full key tiles visited: the loop stops before a last, partial tile."""
    return flash(Q, K, V, is_causal, TILE, TILE, full_key_tiles_only=True)
