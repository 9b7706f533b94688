#!/usr/bin/env bash
# Runs the A/A study (studies/a-vs-a.toml: two identical variants) TRIES times, each in a fresh
# workspace, and counts the tries whose comparisons show no difference (docs/study.md, "How the
# A/A study was measured").
#   bash scripts/aa_study.sh [TRIES]      (10 by default)
# Settings (environment): ACCELOPT (the binary, build/src/cli/accelopt), AA_STUDY (the study
# file), AA_OUT (the folder for the workspaces and logs, a fresh temporary one).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tries=${1:-10}
accelopt=${ACCELOPT:-$root/build/src/cli/accelopt}
study=${AA_STUDY:-$root/studies/a-vs-a.toml}
out=${AA_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/accelopt-aa.XXXXXX")}
[[ -x $accelopt ]] || { echo "aa_study: no $accelopt (build it: bash scripts/build.sh)" >&2; exit 2; }
mkdir -p "$out"
echo "aa_study: $tries tries of $study, workspaces and logs under $out"

quiet_tries=0
quiet_final=0
for try in $(seq 1 "$tries"); do
  log=$out/try$try.log
  start=$(date +%s)
  "$accelopt" study "$study" --workspace "$out/try$try" >"$log" 2>&1 ||
    { echo "try $try: the study failed (exit $?), see $log" >&2; exit 1; }
  comparisons=$(sed -n '/^comparisons /,$p' "$log" | grep '^  ' || true)
  shown=$(grep -vc 'no difference shown\|too few pairs' <<<"$comparisons" || true)
  final=$(grep 'final speedup' <<<"$comparisons" || true)
  echo "try $try ($(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)):"
  echo "$comparisons"
  [[ $shown == 0 ]] && quiet_tries=$((quiet_tries + 1))
  grep -q 'no difference shown' <<<"$final" && quiet_final=$((quiet_final + 1))
done
echo "aa_study: no difference in any comparison in $quiet_tries of $tries tries;" \
  "no difference in the final speedup in $quiet_final of $tries"
