# NKIBench's gqa_full, in NumPy: q [B, N, QH, D], k and v [B, N, KH, D]; query head h reads kv head
# h // (QH / KH); out [B, QH, N, D] = softmax(q k^T / sqrt(D)) v, not causal.
import numpy as np


def run(q, k, v):
    q, k, v = (t.astype(np.float64).transpose(0, 2, 1, 3) for t in (q, k, v))  # [B, heads, N, D]
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True) @ v).astype(np.float32)
