// The closing round of a study (docs/study.md, "The closing round"). Each cell times its best
// kernel against its own baseline, at its own moment; on a shared machine two cells' figures can
// then differ by the minutes they were taken in. After every cell has ended, the closing round
// times each cell's best kernel again against its task's one baseline, the cells of a task in the
// same minutes: `rounds` rounds, each timing every distinct best source of the task once, in an
// order rotated each round. Cells whose best source is the same share its measurements (two
// identical variants that found the same kernel get the same figure by construction); a cell whose
// best is the baseline is 1x exactly and is not timed.
//
// A cell's closing figure combines its source's rounds: the geometric mean of their speedups, and
// an interval from the lower of (the geometric mean of the rounds' lows, the lowest round's
// speedup) to the higher of (the geometric mean of their highs, the highest round's speedup), so
// that rounds which disagree widen it. Any round measured on a busy machine marks it busy. A round
// whose kernel failed, or too few rounds, give no figure.
//
// What was measured is kept in the study's detail (detail["closing_round"]) and saved after every
// measurement, so that an interrupted round resumes where it stopped and a study run again times
// nothing it has timed (JSON, every key always written):
//
//   {"rounds": 3, "skipped": false,
//    "tasks": {"silu": {"sources": ["<sha256>", ...],     the best sources timed together, sorted
//                       "measurements": {"<sha256>": [{"speedup": 2.9, "low": 2.8, "high": 3.0,
//                                                      "busy": false, "failed": ""}, ...]}}},
//    "cells": {"beam/silu/seed1/cold": {"source_hash": "<sha256>", "baseline": false}}}
//
// A task whose set of best sources changed (a cell resumed and ended with another best) is timed
// again from its first round, so that its cells stay timed together.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "study/comparison.h"

namespace accelopt::study {

inline constexpr int kClosingRounds = 3;

// One round's timing of a best kernel against its task's baseline.
struct RoundMeasurement {
  double speedup = 0, low = 0, high = 0;  // 0: no figure (the machine was too busy to judge)
  bool busy = false;                      // measured on a busy machine, or not judged for it
  std::string failed;                     // the kernel failed this time: the verdict's message

  Json to_json() const;
  static RoundMeasurement from_json(const Json& json);
};

// The closing figure of `measured`, the rounds of one source; nullopt when fewer than `rounds`
// were taken, when one failed, or when none gave a figure.
std::optional<ClosingFigure> combine_rounds(const std::vector<RoundMeasurement>& measured,
                                            int rounds);

// An ended cell's best kernel, as the closing round times it.
struct ClosingCell {
  std::string key, task;  // the cell's key ("beam/silu/seed1/cold") and task name
  std::filesystem::path task_directory;
  std::string workload;
  std::string source, source_hash;
  bool baseline = false;  // its best is the baseline itself
};

// One timing the round asks for: a source of a task, in round `round` (0-based) of `rounds`, for
// the cells `keys` that share it.
struct ClosingTurn {
  const ClosingCell* cell = nullptr;  // the first cell whose best is this source
  int round = 0, rounds = 0;
  std::vector<std::string> keys;
};

// Times one turn; nullopt when it was stopped (Ctrl-C), which ends the round.
using MeasureTurn = std::function<std::optional<RoundMeasurement>(const ClosingTurn& turn)>;

struct ClosingProgress {
  int taken = 0;  // measurements made now
  int kept = 0;   // measurements found in the state, not made again
  bool stopped = false;
};

// Runs what `state` (detail["closing_round"], or null) lacks for `cells`, task by task in the
// order of `cells`, calling `save(state)` after every measurement.
ClosingProgress run_closing_round(Json& state, const std::vector<ClosingCell>& cells, int rounds,
                                  const MeasureTurn& measure,
                                  const std::function<void(const Json&)>& save);

// The closing figure `state` holds for the cell `key` of `task` whose best source is now
// `source_hash`; nullopt when the round was skipped, has not timed that source in every round, or
// timed another best of the cell.
std::optional<ClosingFigure> stored_closing_figure(const Json& state, const std::string& key,
                                                   const std::string& task,
                                                   const std::string& source_hash);

}  // namespace accelopt::study
