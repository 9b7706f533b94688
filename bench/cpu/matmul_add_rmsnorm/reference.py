# NKIBench's matmul_add_rmsnorm, in NumPy: y = x @ w + z; out = y * g / sqrt(mean_n y^2 + 1e-5).
import numpy as np


def run(x, w, z, g):
    y = x.astype(np.float64) @ w.astype(np.float64) + z
    return (y * g / np.sqrt(np.mean(y * y, axis=1, keepdims=True) + 1e-5)).astype(np.float32)
