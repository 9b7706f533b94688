#!/usr/bin/env bash
# Configures and builds accelopt into build/ (Release with debug info). Assumes scripts/setup.sh ran
# (with the same mode).
#   scripts/build.sh          everything: the binary, its runners, the tests and the benchmarks
#   scripts/build.sh --main   only the `accelopt` binary and its runners (the main job)
set -euo pipefail
cd "$(dirname "$0")/.."
everything=ON
[ "${1:-}" = "--main" ] && everything=OFF
options=(-DACCELOPT_BUILD_TESTS=$everything -DACCELOPT_BUILD_BENCHMARKS=$everything)
if [ -f build/CMakeCache.txt ]; then
  cmake -S . -B build "${options[@]}" >/dev/null  # the mode may differ from the last build's
else
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${options[@]}" >/dev/null
fi
cmake --build build -j 2
