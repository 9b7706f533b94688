#!/usr/bin/env bash
# Installs the Debian packages accelopt needs to build, test and run. Safe to run again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build g++ clang clang-format clang-tidy
  libsqlite3-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libfmt-dev
  libseccomp-dev libcurl4-openssl-dev libcpp-httplib-dev libkainjow-mustache-dev
  libgtest-dev libgmock-dev libbenchmark-dev libdnnl-dev
  chromium  # the HTML report's tests open it headless (docs/report.md)
  postgresql libpqxx-dev
  slurm-wlm munge  # scale_out_test starts a one-node Slurm of its own (docs/scale-out.md)
)

missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
