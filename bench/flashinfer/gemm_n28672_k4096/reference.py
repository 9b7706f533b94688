import torch

def run(A, B):
    # FlashInfer-Bench's reference is `torch.matmul(A, B.T)` on the float16 tensors. Debian's
    # PyTorch 1.13 has no float16 matrix product on the CPU ("addmm_impl_cpu_" not implemented for
    # 'Half'), so the product is taken in float32 and rounded to float16 once, as a GPU's float16
    # GEMM accumulates in float32 (bench/flashinfer/README.md).
    C = torch.matmul(A.float(), B.float().T).half()
    return C
