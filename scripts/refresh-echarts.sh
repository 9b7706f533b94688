#!/usr/bin/env bash
# Refreshes the vendored ECharts (third_party/echarts) from the npm registry at a fixed version;
# `accelopt report` inlines it into every HTML file, so a report opens without network.
# Usage: scripts/refresh-echarts.sh [VERSION]   (default: the version in third_party/echarts/VERSION)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="${1:-$(cat "$root/third_party/echarts/VERSION")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "echarts@$version" >/dev/null)
tar -xzf "$work/echarts-$version.tgz" -C "$work" package/dist/echarts.min.js package/LICENSE package/NOTICE
cp "$work/package/dist/echarts.min.js" "$work/package/LICENSE" "$work/package/NOTICE" "$root/third_party/echarts/"
echo "$version" > "$root/third_party/echarts/VERSION"
echo "third_party/echarts: ECharts $version"
