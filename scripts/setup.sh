#!/usr/bin/env bash
# Installs the Debian packages accelopt needs. Safe to run again.
#   scripts/setup.sh          to build, test and run: the main job's packages below and the tests'
#                             (GoogleTest, Chromium, PostgreSQL, Slurm, munge, sshd, python3-numpy,
#                             oneDNN for `bench`, clang-format and clang-tidy)
#   scripts/setup.sh --main   only what the main job needs to build and run the `accelopt` binary
#                             and its runner (scripts/main.sh)
#   scripts/setup.sh --cuda   also Debian's CUDA toolkit (nvcc, cuBLAS), from the non-free component,
#                             which this enables in the apt sources; large (a few GB)
#   scripts/setup.sh --torch  also Debian's PyTorch (python3-torch, CPU), for tasks whose
#                             reference.py imports torch (docs/task-format.md) such as
#                             bench/flashinfer's (scripts/test.sh asks for it); 567 MB beyond the
#                             other packages (apt's figure, Debian 12, 2026-12-06)
set -euo pipefail

with_cuda=0
with_torch=0
main_only=0
for argument in "$@"; do
  case "$argument" in
    --cuda) with_cuda=1 ;;
    --main) main_only=1 ;;
    --torch) with_torch=1 ;;
    *) echo "setup: unknown argument $argument (--main, --cuda, --torch)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build g++
  libsqlite3-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libfmt-dev
  libseccomp-dev libcurl4-openssl-dev libcpp-httplib-dev libkainjow-mustache-dev
  libpqxx-dev
  python3 python3-numpy  # a task's reference.py runs on Debian's /usr/bin/python3 (docs/task-format.md)
)
if [ "$main_only" -eq 0 ]; then
  packages+=(
    clang clang-format clang-tidy
    libgtest-dev libgmock-dev libbenchmark-dev libdnnl-dev
    chromium  # the HTML report's tests open it headless (docs/report.md)
    postgresql
    slurm-wlm munge  # scale_out_test starts a one-node Slurm of its own (docs/scale-out.md)
    openssh-server openssh-client  # the evaluator-command tests (docs/evaluator-protocol.md)
  )
fi
if [ "$with_cuda" -eq 1 ]; then
  packages+=(nvidia-cuda-toolkit)
fi
if [ "$with_torch" -eq 1 ]; then
  packages+=(python3-torch)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"

# nvidia-cuda-toolkit lives in Debian's non-free component (and needs contrib).
enable_non_free() {
  local sources=/etc/apt/sources.list.d/debian.sources
  if [ -f "$sources" ]; then
    grep -q 'non-free' "$sources" ||
      $sudo_cmd sed -i -E 's/^Components: main$/Components: main contrib non-free non-free-firmware/' "$sources"
  elif [ -f /etc/apt/sources.list ]; then
    grep -q 'non-free' /etc/apt/sources.list ||
      $sudo_cmd sed -i -E 's/^(deb .*debian.* main)$/\1 contrib non-free non-free-firmware/' /etc/apt/sources.list
  fi
}

if [ ${#missing[@]} -gt 0 ]; then
  [ "$with_cuda" -eq 1 ] && enable_non_free
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
fi
