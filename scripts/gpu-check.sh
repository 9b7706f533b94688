#!/usr/bin/env bash
# The checks that need an NVIDIA GPU, for a machine that has one: builds with CUDA required, prints
# the GPU probe, runs the CUDA platform's device and compile tests (which skip elsewhere), then a
# short eval and optimize of the silu task on the GPU. Run from anywhere:
#   scripts/gpu-check.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}

if ! nvidia-smi -L; then
  echo "gpu-check: no NVIDIA GPU is visible (nvidia-smi failed); nothing to check here" >&2
  exit 1
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACCELOPT_CUDA=ON >/dev/null
ninja -C "$build" accelopt accelopt-runner accelopt-cuda-runner accelopt_gpu_probe \
  cuda_platform_test cuda_compile_test cuda_compile_all_test command_platform_test

echo "== GPU probe"
"$build"/src/platform/cuda/accelopt-gpu-probe
echo "== CUDA platform tests (device tests must run here, not skip)"
"$build"/src/platform/cuda/cuda_platform_test --gtest_brief=1 2>&1 | tee "$build"/gpu-check-tests.log
# A bench/flashinfer test may skip for want of PyTorch (its references); none may skip for the GPU.
if grep -q "no CUDA here" "$build"/gpu-check-tests.log; then
  echo "gpu-check: device tests skipped on a machine with a GPU:" >&2
  grep -B1 -A1 "no CUDA here" "$build"/gpu-check-tests.log >&2
  exit 1
fi
"$build"/src/platform/cuda/cuda_compile_test --gtest_brief=1
"$build"/src/platform/cuda/cuda_compile_all_test --gtest_brief=1

echo "== the silu baseline, then a short optimize, on the GPU (--platform cuda)"
workspace=$(mktemp -d)
trap 'rm -rf "$workspace"' EXIT
"$build"/src/cli/accelopt eval --platform cuda --task bench/cuda/silu --workload small
"$build"/src/cli/accelopt optimize --platform cuda --task bench/cuda/silu --workload small \
  --workspace "$workspace" --preset quick --iterations 1
echo "gpu-check: done"
