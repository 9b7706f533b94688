# NKIBench's transpose_matmul, in NumPy: out = lhs^T @ rhs, lhs [K, M].
import numpy as np


def run(lhs, rhs):
    return (lhs.astype(np.float64).T @ rhs.astype(np.float64)).astype(np.float32)
