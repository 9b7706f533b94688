import numpy as np


def run(x):
    # float32: the harness rounds a bfloat16 output (docs/task-format.md).
    return x.astype(np.float32)
