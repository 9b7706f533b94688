# NKIBench's bmm_softmax, in NumPy: softmax over the last axis (max subtracted) of lhs[b] @ rhs[b].
import numpy as np


def run(lhs, rhs):
    scores = np.matmul(lhs.astype(np.float64), rhs.astype(np.float64))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
