# NKIBench's adamw, in NumPy (float64, then float32): one AdamW step at step 1, lr 1e-3,
# betas (0.9, 0.999), eps 1e-8, weight decay 1e-2, bias correction folded into the constants.
import numpy as np


def run(param, grad, exp_avg, exp_avg_sq):
    # Every input to float64 first: a Python float times a float32 array stays float32 in NumPy.
    param, grad, exp_avg, exp_avg_sq = (
        t.astype(np.float64) for t in (param, grad, exp_avg, exp_avg_sq))
    decayed = param * (1 - 1e-5)
    m = 0.9 * exp_avg + 0.1 * grad
    v = 0.999 * exp_avg_sq + 0.001 * grad * grad
    return (decayed - 0.01 * m / (np.sqrt(1000 * v) + 1e-8)).astype(np.float32)
