// What a study shows (accelopt study, study status, report --study): its cells read back from the
// database as curves of best % of peak against cumulative cost, the answers computed from them
// (study/comparison.h), and their forms: terminal text, one HTML page (the report's page and
// ECharts), CSV and JSON for notebooks.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/json.h"
#include "store/store.h"
#include "study/comparison.h"

namespace accelopt::report {

// A study as the database holds it: its record, its cells in the study's order (from the record's
// detail) and each cell's result when its run exists.
struct StudyView {
  store::StudyRecord study;
  double fraction = 0.9;
  std::string memory_order;
  std::vector<std::string> series;  // variants, then "<variant>+warm" for a warm pass
  struct Cell {
    std::string key, variant;
    bool warm = false;
    study::CellResult result;  // run_id 0 and no curve when the cell has not started
  };
  std::vector<Cell> cells;
  // The closing round (study/closing_round.h) as the study's detail keeps it: its rounds, whether
  // the last `accelopt study` skipped it (--no-closing-round), and how many of the ended cells
  // have a closing figure for the best their run ended with.
  int closing_rounds = 0;
  bool closing_skipped = false;
  int closing_cells = 0, ended_cells = 0;
  std::vector<study::CellResult> results() const;
  // Where the final figures come from, as the answers and the page say it: "final figures from the
  // closing round (3 rounds, cells of a task timed together)", or each cell's own and why.
  std::string final_figures_text() const;
};

// UserError "there is no study N in this workspace" when the store has none.
StudyView load_study_view(const store::Store& store, int64_t study_id);

// The grid's progress: each cell's run, state, evaluations and best % of peak (" [busy]" where a
// figure it rests on was measured on a busy machine).
void print_study_status(std::ostream& out, const StudyView& view);
// The answers: where the final figures come from, per series and task (and the geometric mean)
// the final % of peak and speedup (" [busy]" marks, the legend under the table) and the cost to
// reach the fraction of the best, then the pairwise sentences.
void print_study_answers(std::ostream& out, const StudyView& view, const study::Answers& answers);

std::string study_html(const StudyView& view, const study::Answers& answers);
// One row per cell and curve point: study, series, task, seed, run, state, point, cost on every
// axis, % of peak.
std::string study_csv(const StudyView& view);
Json study_json(const StudyView& view, const study::Answers& answers);

}  // namespace accelopt::report
