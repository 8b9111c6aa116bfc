"""vLLM's kernel in spirit, in MindSpore: walk each sequence's blocks in table order and keep a running max,
sum and weighted sum per head (an online softmax), masking the unused slots of the last block; a Cell."""

from mindspore import nn, ops

DIAGNOSIS = None


class PagedDecoder(nn.Cell):
    def __init__(self, block_size: int):
        super().__init__()
        self.block_size = block_size

    def construct(self, q, key_cache, value_cache, table, length):
        heads, d = q.shape
        group = heads // key_cache.shape[2]
        m = ops.full((heads, 1), float("-inf"), dtype=q.dtype)
        total = ops.zeros((heads, 1), q.dtype)
        acc = ops.zeros((heads, d), q.dtype)
        for b in range((length + self.block_size - 1) // self.block_size):
            block = int(table[b])
            k = ops.repeat_interleave(key_cache[block], group, axis=1).swapaxes(0, 1)  # (heads, slots, d)
            v = ops.repeat_interleave(value_cache[block], group, axis=1).swapaxes(0, 1)
            scores = ops.matmul(k, q[:, :, None])[:, :, 0] / d**0.5  # (heads, slots)
            used = min(self.block_size, length - b * self.block_size)
            scores = scores[:, :used]
            m_new = ops.maximum(m, scores.max(axis=-1, keepdims=True))
            p = ops.exp(scores - m_new)
            scale = ops.exp(m - m_new)
            total = total * scale + p.sum(axis=-1, keepdims=True)
            acc = acc * scale + ops.matmul(p[:, None, :], v[:, :used])[:, 0, :]
            m = m_new
        return acc / total


def run_paged_attention(query, key_cache, value_cache, block_tables, context_lens):
    decoder = PagedDecoder(key_cache.shape[1])
    lengths = context_lens.asnumpy().tolist()
    tables = block_tables.asnumpy()
    return ops.stack([decoder(query[s], key_cache, value_cache, tables[s], int(lengths[s]))
                      for s in range(query.shape[0])]).astype(query.dtype)
