#!/usr/bin/env bash
# Load beside the tests, as a shared machine has it: a memory streamer (STREAM's triad over three
# 64 MiB arrays, far past any cache) and a compute spinner (dependent floating-point multiply-adds),
# each a small C program compiled here with cc, each one process at normal priority.
#   scripts/load.sh -- COMMAND ...   runs COMMAND beside the load, stops the load when it ends and
#                                    exits with COMMAND's status
#   scripts/load.sh start            starts the load in the background (until `stop`, or at most
#                                    LOAD_SECONDS)
#   scripts/load.sh stop             stops what `start` started
# Settings (environment): LOAD_STREAMERS and LOAD_SPINNERS (processes of each, 1 and 1),
# LOAD_SECONDS (each load process stops itself after this long, 7200: a forgotten `start` ends).
# No network, no files outside a temporary folder and the state file of `start` (LOAD_STATE,
# ${TMPDIR:-/tmp}/accelopt-load.pids).
set -euo pipefail

streamers=${LOAD_STREAMERS:-1}
spinners=${LOAD_SPINNERS:-1}
seconds=${LOAD_SECONDS:-7200}
state=${LOAD_STATE:-${TMPDIR:-/tmp}/accelopt-load.pids}

usage() {
  echo "usage: scripts/load.sh -- COMMAND ... | start | stop" >&2
  exit 2
}

# Compiles the load program into a fresh folder and prints its path.
build_load_program() {
  local folder
  folder=$(mktemp -d "${TMPDIR:-/tmp}/accelopt-load.XXXXXX")
  cat >"$folder/load.c" <<'EOF'
/* load stream|spin SECONDS: keeps one core busy streaming memory or multiplying, then exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return (double)time.tv_sec + 1e-9 * (double)time.tv_nsec;
}

static int stream(double end) {
  const size_t count = (size_t)8 << 20; /* 8 Mi doubles: 64 MiB per array */
  double* a = malloc(count * sizeof *a);
  double* b = malloc(count * sizeof *b);
  double* c = malloc(count * sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, "load: cannot allocate the streamer's 192 MiB\n");
    return 1;
  }
  for (size_t i = 0; i < count; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
  while (now() < end) {
    for (size_t i = 0; i < count; ++i) a[i] = b[i] + 0.5 * c[i];
    double* swap = a;
    a = b, b = c, c = swap;
  }
  volatile double sink = a[count / 2];
  (void)sink;
  return 0;
}

static int spin(double end) {
  double lanes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  while (now() < end) {
    for (int step = 0; step < 1000000; ++step) {
      for (int lane = 0; lane < 8; ++lane) lanes[lane] = lanes[lane] * 0.999999 + 1e-6;
    }
  }
  volatile double sink = lanes[0];
  (void)sink;
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: load stream|spin SECONDS\n");
    return 2;
  }
  double end = now() + atof(argv[2]);
  if (strcmp(argv[1], "stream") == 0) return stream(end);
  if (strcmp(argv[1], "spin") == 0) return spin(end);
  fprintf(stderr, "load: unknown kind %s (stream, spin)\n", argv[1]);
  return 2;
}
EOF
  cc -O2 -o "$folder/load" "$folder/load.c"
  echo "$folder"
}

# Stops the processes whose ids are given (those still running), then removes the folder.
stop_load() {
  local folder=$1
  shift
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$folder"
}

case "${1:-}" in
  --)
    shift
    [ $# -gt 0 ] || usage
    folder=$(build_load_program)
    pids=()
    trap 'stop_load "$folder" "${pids[@]}"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # Not in a command substitution: the load must stay this shell's children, to be waited for.
    for ((index = 0; index < streamers; ++index)); do
      "$folder/load" stream "$seconds" &
      pids+=($!)
    done
    for ((index = 0; index < spinners; ++index)); do
      "$folder/load" spin "$seconds" &
      pids+=($!)
    done
    echo "load: ${streamers} memory streamer(s) and ${spinners} compute spinner(s) running" >&2
    status=0
    "$@" || status=$?
    exit "$status"
    ;;
  start)
    [ ! -s "$state" ] || { echo "load: already started ($state); scripts/load.sh stop first" >&2; exit 1; }
    folder=$(build_load_program)
    # setsid: the load outlives this script, until `stop` or LOAD_SECONDS.
    {
      echo "$folder"
      for ((index = 0; index < streamers; ++index)); do
        setsid "$folder/load" stream "$seconds" </dev/null >/dev/null 2>&1 &
        echo $!
      done
      for ((index = 0; index < spinners; ++index)); do
        setsid "$folder/load" spin "$seconds" </dev/null >/dev/null 2>&1 &
        echo $!
      done
    } >"$state"
    echo "load: ${streamers} memory streamer(s) and ${spinners} compute spinner(s) started" \
      "for at most ${seconds} s; scripts/load.sh stop ends them" >&2
    ;;
  stop)
    [ -s "$state" ] || { echo "load: nothing started ($state is absent)" >&2; exit 0; }
    mapfile -t lines <"$state"
    folder=${lines[0]}
    for pid in "${lines[@]:1}"; do
      # Only our own load program: a recycled id is left alone.
      if [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$folder/load" ]; then kill "$pid"; fi
    done
    rm -rf "$folder" "$state"
    echo "load: stopped" >&2
    ;;
  *) usage ;;
esac
