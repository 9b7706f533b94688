# NKIBench's add_rmsnorm_matmul, in NumPy: y = x + z; out = (y / sqrt(mean_k y^2 + 1e-5) * g) @ w.
import numpy as np


def run(x, z, g, w):
    y = x.astype(np.float64) + z
    normed = y / np.sqrt(np.mean(y * y, axis=1, keepdims=True) + 1e-5) * g
    return (normed @ w.astype(np.float64)).astype(np.float32)
