# NKIBench's swiglu, in NumPy: out = (silu(x @ w_gate) * (x @ w_up)) @ w_down.
import numpy as np


def run(x, w_gate, w_up, w_down):
    x = x.astype(np.float64)
    gate = x @ w_gate.astype(np.float64)
    up = x @ w_up.astype(np.float64)
    hidden = gate / (1 + np.exp(-gate)) * up
    return (hidden @ w_down.astype(np.float64)).astype(np.float32)
