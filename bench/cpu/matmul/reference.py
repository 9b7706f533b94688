# NKIBench's matmul, in NumPy: out = lhs @ rhs.
import numpy as np


def run(lhs, rhs):
    return (lhs.astype(np.float64) @ rhs.astype(np.float64)).astype(np.float32)
