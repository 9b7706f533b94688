#!/usr/bin/env bash
# The main job, offline: installs what is needed, builds accelopt, measures this machine once, and
# optimizes three benchmark kernels with the built-in tuner (no model server needed; at most two
# minutes each). Ends with a table of % of peak before and after. Extra arguments go to
# `accelopt optimize`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --main  # only what this job runs; scripts/test.sh installs and builds the rest
bash scripts/build.sh --main
./build/src/cli/accelopt machine probe
./build/src/cli/accelopt optimize --task bench/cpu/matmul bench/cpu/silu bench/cpu/bmm \
  --preset quick --max-wall-seconds 120 --workspace .accelopt "$@"
