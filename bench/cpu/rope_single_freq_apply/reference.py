# NKIBench's rope_single_freq_apply, in NumPy: x [D, ...], cos and sin [D/2, ...];
# out = concat(x0 cos - x1 sin, x0 sin + x1 cos) on axis 0, x0 = x[:D/2], x1 = x[D/2:].
import numpy as np


def run(x, cos_table, sin_table):
    x = x.astype(np.float64)
    cos, sin = cos_table.astype(np.float64), sin_table.astype(np.float64)
    half = x.shape[0] // 2
    x0, x1 = x[:half], x[half:]
    return np.concatenate([x0 * cos - x1 * sin, x0 * sin + x1 * cos]).astype(np.float32)
