#include "report/study_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include "common/error.h"
#include "llm/ledger.h"
#include "report/html_report.h"
#include "report/run_view.h"
#include "search/figures.h"
#include "search/selection.h"
#include "study/closing_round.h"

namespace accelopt::report {
namespace {

// The run's curve: one point per checkpoint (the beam's best, as the report plots it), then, when
// the run ended, its best as the confirmation re-timed it, at everything the run spent.
std::vector<study::Point> run_curve(const RunView& view) {
  std::vector<study::Point> curve;
  std::optional<double> start = parse_utc(view.run.created_at);
  struct Spent {
    double at, tokens, usd;
  };
  std::vector<Spent> spent;
  double tokens = 0, usd = 0;
  for (const auto& call : view.calls) {
    tokens += static_cast<double>(call.prompt_tokens + call.completion_tokens);
    usd += call.cost_usd;
    spent.push_back(Spent{parse_utc(call.timestamp).value_or(0), tokens, usd});
  }
  auto point_at = [&](const std::string& when, int64_t evaluations,
                      const search::Figures& figures) {
    study::Point point;
    std::optional<double> at = parse_utc(when);
    point.evaluations = static_cast<double>(evaluations + 1);  // the baseline's counts
    point.seconds = start && at ? std::max(0.0, *at - *start) : 0.0;
    for (const Spent& s : spent) {
      if (!at || s.at <= *at) {
        point.tokens = s.tokens;
        point.usd = s.usd;
      }
    }
    point.percent = figures.percent_of_peak;
    point.speedup = figures.speedup;
    point.busy = figures.busy;
    return point;
  };
  for (const auto& checkpoint : view.checkpoints) {
    auto beam = view.beam_of(checkpoint);
    if (beam.empty()) continue;
    curve.push_back(point_at(checkpoint.created_at, view.evaluations(checkpoint.iteration),
                             view.figures(search::fastest(beam).candidate)));
  }
  bool ended = view.run.state == "finished" || view.run.state.rfind("stopped", 0) == 0;
  if (ended && !curve.empty()) {
    if (auto best = view.best()) {
      study::Point last = point_at(view.run.updated_at, view.evaluations(), best->figures);
      last.tokens = tokens;
      last.usd = usd;
      curve.push_back(last);
    }
  }
  return curve;
}

std::string percent(double value) {
  return fmt::format("{:.1f}", value);
}

std::string cost_text(double value, study::CostAxis axis) {
  switch (axis) {
    case study::CostAxis::kEvaluations:
    case study::CostAxis::kTokens:
      return fmt::format("{:.0f}", value);
    case study::CostAxis::kUsd:
      return value >= 1 ? fmt::format("{:.2f}", value) : fmt::format("{:.2g}", value);
    case study::CostAxis::kSeconds:
      return fmt::format("{:.0f}", value);
  }
  return "?";
}

std::string band_text(const study::Band& band, const std::function<std::string(double)>& show) {
  if (band.low == band.high) return show(band.median);
  return fmt::format("{} [{}, {}]", show(band.median), show(band.low), show(band.high));
}

Json band_json(const study::Band& band) {
  return Json{{"median", band.median}, {"low", band.low}, {"high", band.high}};
}

std::string budget_text(const Json& budget) {
  std::string text;
  for (const auto& [key, value] : budget.items()) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", key, value.dump());
  }
  return text.empty() ? "none recorded" : text;
}

std::string memory_order_text(const std::string& order) {
  if (order == "cold-then-warm") {
    return "cold, then warm: every cold cell sees the memory as of the study's start and its own "
           "run's; then each memory variant runs again (+warm), seeing all the memory the cold "
           "pass made";
  }
  if (order == "leave-one-out") {
    return "cold, then warm leave-one-out: every cold cell sees the memory as of the study's start "
           "and its own run's; then each memory variant runs again on each task (+warm), seeing "
           "only the memory its own variant's cold cells made on the other tasks, never the "
           "task's own";
  }
  return "cold: every cell sees the memory as of the study's start and its own run's, never "
         "another cell's";
}

bool run_ended(const std::string& state) {
  return state == "finished" || state.rfind("stopped", 0) == 0;
}

// The closing figure the study's detail holds for the best the cell's run ended with.
std::optional<study::ClosingFigure> closing_figure(const RunView& view, const Json& closing,
                                                   const std::string& key,
                                                   const std::string& task) {
  if (!run_ended(view.run.state)) return std::nullopt;
  auto best = view.best();
  if (!best) return std::nullopt;
  const store::CandidateRecord* candidate = view.candidate(best->candidate);
  if (candidate == nullptr) return std::nullopt;
  return study::stored_closing_figure(closing, key, task, candidate->source_hash);
}

constexpr const char* kStudyScript = R"js(
(function () {
  const errors = [];
  window.addEventListener('error', (e) => errors.push(String(e.message)));
  const consoleError = console.error;
  console.error = function () { errors.push(Array.from(arguments).join(' ')); consoleError.apply(console, arguments); };
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const charts = [];
  const palette = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
  const el = (tag, attrs, text) => { const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    if (text !== undefined) e.textContent = text; return e; };
  const main = document.querySelector('main');
  const section = (title) => { const s = el('section'); s.appendChild(el('h2', {}, title)); main.appendChild(s); return s; };
  const table = (parent, headers, rows) => { const t = el('table'); const h = el('tr');
    headers.forEach((x) => h.appendChild(el('th', {}, x))); t.appendChild(h);
    rows.forEach((r) => { const tr = el('tr'); r.forEach((x) => tr.appendChild(el('td', {}, String(x)))); t.appendChild(tr); });
    parent.appendChild(t); };
  const fmt = (x, d) => (x === null || x === undefined) ? '-' : Number(x).toFixed(d);

  const about = section('What this study answers');
  about.appendChild(el('p', {}, data.about));
  about.appendChild(el('p', {}, data.final_figures + '.'));
  const sentences = el('ul');
  data.comparisons.forEach((c) => sentences.appendChild(el('li', {}, c.sentence)));
  if (!data.comparisons.length) sentences.appendChild(el('li', {}, 'no pair of variants has cells to compare yet'));
  about.appendChild(sentences);

  const axisLabel = { evaluations: 'evaluations (the baseline\'s included)', tokens: 'model tokens', dollars: 'model dollars', seconds: 'wall time (s)' };
  data.axes.forEach((axis) => {
    const s = section('Best % of peak against ' + axisLabel[axis] + ': median over seeds (solid), lowest and highest seed (dashed)');
    const grid = el('div', { class: 'grid' }); s.appendChild(grid);
    data.tasks.concat(data.rows.some((r) => r.task === 'geomean') ? ['geomean'] : []).forEach((task) => {
      const series = [];
      data.series.forEach((name, index) => {
        const curve = data.curves.find((c) => c.series === name && c.task === task && c.axis === axis);
        if (!curve) return;
        const color = palette[index % palette.length];
        series.push({ name: name, type: 'line', step: 'end', symbolSize: 5, color: color,
          data: curve.x.map((x, i) => [x, curve.y[i].median]) });
        // The band: the lowest and the highest seed, thin dashed lines of the same colour.
        ['low', 'high'].forEach((edge) => series.push({ name: name, type: 'line', step: 'end',
          symbol: 'none', color: color, lineStyle: { type: 'dashed', width: 1, opacity: 0.6 },
          data: curve.x.map((x, i) => [x, curve.y[i][edge]]), tooltip: { show: false } }));
      });
      // A busy figure: its cell's point (the run's end for a busy closing figure) as a triangle.
      let marked = 0;
      data.series.forEach((name, index) => {
        const marks = [];
        data.cells.filter((c) => c.series === name && c.task === task).forEach((c) => c.curve.forEach((p, i) => {
          if (p.busy || (i === c.curve.length - 1 && c.closing && c.closing.busy)) marks.push([p[axis], p.percent]);
        }));
        marked += marks.length;
        if (marks.length) series.push({ name: name, type: 'scatter', symbol: 'triangle', symbolSize: 11,
          color: palette[index % palette.length], data: marks, tooltip: { show: false } });
      });
      const div = el('div', { class: 'chart' }); grid.appendChild(div);
      const c = echarts.init(div);
      c.setOption({ animation: false,
        title: { text: task === 'geomean' ? 'geometric mean over tasks' : task, textStyle: { fontSize: 13 },
          subtext: marked ? '\u25B2 ' + data.busy_legend : '' },
        tooltip: { trigger: 'axis' },
        legend: { top: marked ? 40 : 22, data: data.series },
        grid: { top: marked ? 76 : 60, left: 50, right: 20, bottom: 40 },
        xAxis: { type: 'value', name: axisLabel[axis], nameLocation: 'middle', nameGap: 24, scale: axis !== 'dollars' },
        yAxis: { type: 'value', name: '% of peak', scale: true },
        series: series });
      charts.push(c);
    });
  });

  const finals = section('Final figures and the cost to reach ' + Math.round(data.fraction * 100) + ' % of the best gain found');
  finals.appendChild(el('p', {}, 'Best speedup found per task over its cell\'s own baseline (any cell): ' + data.tasks.map((t) => t + ' ' + fmt(data.best_found[t], 2) + 'x').join(', ') +
    '. A cell that never reached the target counts at its whole cost.'));
  const busy = (flag) => flag ? ' [busy]' : '';
  table(finals, ['series', 'task', 'cells', 'final % of peak: median [low, high]', 'final speedup: median [low, high]'].concat(data.axes.map((a) => a + ' to reach')).concat(['reached']),
    data.rows.map((r) => [r.series, r.task, r.cells, fmt(r.final_percent.median, 1) + ' [' + fmt(r.final_percent.low, 1) + ', ' + fmt(r.final_percent.high, 1) + ']',
      fmt(r.final_speedup.median, 2) + 'x [' + fmt(r.final_speedup.low, 2) + ', ' + fmt(r.final_speedup.high, 2) + ']' + busy(r.busy > 0)]
      .concat(data.axes.map((a) => r.cost_to_reach[a] ? fmt(r.cost_to_reach[a].median, a === 'dollars' ? 4 : 0) + ' [' + fmt(r.cost_to_reach[a].low, a === 'dollars' ? 4 : 0) + ', ' + fmt(r.cost_to_reach[a].high, a === 'dollars' ? 4 : 0) + ']' : '-'))
      .concat([r.reached + ' of ' + r.cells])));
  if (data.rows.some((r) => r.busy > 0)) finals.appendChild(el('p', {}, data.busy_legend));

  const comparisons = section('Pairwise comparisons (paired bootstrap over (task, seed) pairs)');
  table(comparisons, ['a', 'b', 'measure', 'a / b', '95 % interval', 'pairs', 'left out', 'shown'],
    data.comparisons.map((c) => [c.a, c.b, c.measure === 'cost' ? c.axis + ' to reach' : 'final speedup over own baseline', fmt(c.ratio, 3),
      '[' + fmt(c.low, 3) + ', ' + fmt(c.high, 3) + ']', c.pairs, c.left_out, c.shown ? 'yes' : 'no difference shown']));

  const cells = section('Cells (each an ordinary run: accelopt show RUN)');
  table(cells, ['cell', 'run', 'state', 'final % of peak', 'final speedup'],
    data.cells.map((c) => [c.key, c.run || '-', c.state || 'not started', c.curve.length ? fmt(c.final_percent, 1) : '-',
      c.curve.length ? fmt(c.final_speedup, 2) + 'x' + (c.closing ? ' (closing round)' : '') + busy(c.busy) : '-']));
  if (data.cells.some((c) => c.busy)) cells.appendChild(el('p', {}, data.busy_legend));

  window.addEventListener('resize', () => charts.forEach((c) => c.resize()));
  const check = document.getElementById('render-check');
  check.setAttribute('data-charts', String(charts.length));
  check.setAttribute('data-canvases', String(document.querySelectorAll('canvas').length));
  check.setAttribute('data-errors', errors.join(' | '));
  check.setAttribute('data-done', 'yes');
})();
)js";

}  // namespace

std::vector<study::CellResult> StudyView::results() const {
  std::vector<study::CellResult> all;
  for (const Cell& cell : cells) all.push_back(cell.result);
  return all;
}

std::string StudyView::final_figures_text() const {
  constexpr const char* kApart = "each cell's own figure, measured apart";
  if (closing_skipped) {
    return fmt::format("final figures: {} (the closing round was skipped: --no-closing-round)",
                       kApart);
  }
  if (closing_cells == 0) {
    return fmt::format("final figures: {} (no closing round yet: it runs once every cell ended)",
                       kApart);
  }
  std::string text = fmt::format(
      "final figures from the closing round ({} round{}, cells of a task timed together)",
      closing_rounds, closing_rounds == 1 ? "" : "s");
  if (closing_cells < ended_cells) {
    text += fmt::format(" for {} of {} ended cells; the others': {}", closing_cells, ended_cells,
                        kApart);
  }
  return text;
}

StudyView load_study_view(const store::Store& store, int64_t study_id) {
  auto record = store.study(study_id);
  if (!record) throw UserError(fmt::format("there is no study {} in this workspace", study_id));
  StudyView view;
  view.study = *record;
  const Json& detail = record->detail;
  view.fraction = detail.value("fraction", 0.9);
  view.memory_order = detail.value("memory_order", "cold");
  std::map<std::string, int64_t> runs = store.study_cells(study_id);
  Json closing = detail.value("closing_round", Json::object());
  view.closing_rounds = closing.value("rounds", 0);
  view.closing_skipped = closing.value("skipped", false);
  for (const Json& cell : detail.value("cells", Json::array())) {
    StudyView::Cell entry;
    entry.key = cell.value("key", "");
    entry.variant = cell.value("variant", "");
    entry.warm = cell.value("warm", false);
    entry.result.series = entry.variant + (entry.warm ? "+warm" : "");
    entry.result.task = cell.value("task", "");
    entry.result.seed = cell.value("seed", uint64_t{1});
    if (std::find(view.series.begin(), view.series.end(), entry.result.series) ==
        view.series.end()) {
      view.series.push_back(entry.result.series);
    }
    if (auto run = runs.find(entry.key); run != runs.end()) {
      RunView run_view = load_run_view(store, run->second);
      entry.result.run_id = run->second;
      entry.result.state = run_view.run.state;
      entry.result.curve = run_curve(run_view);
      entry.result.closing = closing_figure(run_view, closing, entry.key, entry.result.task);
      if (run_ended(run_view.run.state) && entry.result.has_result()) ++view.ended_cells;
      if (entry.result.closing) ++view.closing_cells;
    }
    view.cells.push_back(entry);
  }
  // Warm series after the cold ones, as the study runs them.
  std::stable_partition(view.series.begin(), view.series.end(),
                        [](const std::string& name) { return !name.ends_with("+warm"); });
  return view;
}

namespace {

std::string speedup_text(double value) {
  return fmt::format("{:.2f}x", value);
}

// Per series and task: the final % of peak and speedup (" [busy]" when a cell's figures were
// measured on a busy machine, with the legend under the table), the cost to reach the target.
void print_answer_rows(std::ostream& out, const study::Answers& answers) {
  std::string header = fmt::format("{:<22} {:<20} {:>5}  {:<22} {:<30}", "series", "task", "cells",
                                   "final % [low, high]", "final speedup [low, high]");
  for (study::CostAxis axis : answers.axes) {
    header += fmt::format(" {:<20}", fmt::format("{} to reach", study::axis_name(axis)));
  }
  out << header << " reached\n";
  bool any_busy = false;
  for (const study::SeriesTask& row : answers.rows) {
    any_busy = any_busy || row.busy > 0;
    std::string speedup =
        band_text(row.final_speedup, speedup_text) + search::busy_mark(row.busy > 0);
    std::string line = fmt::format("{:<22} {:<20} {:>5}  {:<22} {:<30}", row.series, row.task,
                                   row.cells, band_text(row.final_percent, percent), speedup);
    for (study::CostAxis axis : answers.axes) {
      auto found = row.cost_to_reach.find(axis);
      std::string text =
          found == row.cost_to_reach.end()
              ? "-"
              : band_text(found->second, [axis](double v) { return cost_text(v, axis); });
      line += fmt::format(" {:<20}", text);
    }
    out << line << fmt::format(" {} of {}\n", row.reached, row.cells);
  }
  if (any_busy) out << search::kBusyLegend << "\n";
}

}  // namespace

void print_study_status(std::ostream& out, const StudyView& view) {
  int done = 0;
  for (const auto& cell : view.cells) {
    const std::string& state = cell.result.state;
    if (state == "finished" || state.rfind("stopped", 0) == 0) ++done;
  }
  out << fmt::format("study {} ({}): {}; {} of {} cells done\n", view.study.id, view.study.name,
                     view.study.state, done, view.cells.size());
  out << fmt::format("{:<44} {:>5} {:>8} {:>9} {:>9}  {}\n", "cell", "run", "evals", "best %",
                     "speedup", "state");
  bool any_busy = false;
  for (const auto& cell : view.cells) {
    const auto& result = cell.result;
    std::string run = result.run_id ? std::to_string(result.run_id) : "-";
    std::string evals =
        result.has_result() ? fmt::format("{:.0f}", result.curve.back().evaluations - 1) : "-";
    std::string best = result.has_result() ? percent(result.final_percent()) : "-";
    std::string speedup =
        result.has_result() ? fmt::format("{:.2f}x", result.final_speedup()) : "-";
    std::string state = result.state.empty() ? "not started" : result.state;
    any_busy = any_busy || (result.has_result() && result.busy());
    out << fmt::format("{:<44} {:>5} {:>8} {:>9} {:>9}  {}{}\n", cell.key, run, evals, best,
                       speedup, state, search::busy_mark(result.has_result() && result.busy()));
  }
  if (any_busy) out << search::kBusyLegend << "\n";
  out << view.final_figures_text() << "\n";
}

void print_study_answers(std::ostream& out, const StudyView& view, const study::Answers& answers) {
  out << fmt::format("study {} ({}): {}\n", view.study.id, view.study.name, view.study.state);
  out << "budget, the same for every cell: "
      << budget_text(view.study.detail.value("budget", Json::object())) << "\n";
  out << "memory order: " << memory_order_text(view.memory_order) << "\n";
  std::string best;
  for (const std::string& task : answers.tasks) {
    auto found = answers.best_found.find(task);
    best += fmt::format(
        "{}{} {}", best.empty() ? "" : ", ", task,
        found == answers.best_found.end() ? "-" : fmt::format("{:.2f}x", found->second));
  }
  out << fmt::format(
      "best speedup found per task over its cell's own baseline (any cell): {}; target: {:.0f} % "
      "of its gain over the baseline\n",
      best, answers.fraction * 100);
  out << view.final_figures_text() << "\n\n";
  print_answer_rows(out, answers);
  out << "\ncomparisons (paired bootstrap over (task, seed) pairs, 2000 resamples, seed 27; "
         "docs/study.md):\n";
  if (answers.comparisons.empty()) out << "  none yet: no two variants have cells in common\n";
  for (const study::Comparison& comparison : answers.comparisons) {
    out << "  " << comparison.sentence;
    if (comparison.left_out > 0) {
      out << fmt::format(" ({} left out: neither reached it, or one at no cost)",
                         comparison.left_out);
    }
    out << "\n";
  }
}

Json study_json(const StudyView& view, const study::Answers& answers) {
  Json cells = Json::array();
  for (const auto& cell : view.cells) {
    Json curve = Json::array();
    for (const study::Point& point : cell.result.curve) {
      curve.push_back(Json{{"evaluations", point.evaluations},
                           {"tokens", point.tokens},
                           {"dollars", point.usd},
                           {"seconds", point.seconds},
                           {"percent", point.percent},
                           {"speedup", point.speedup},
                           {"busy", point.busy}});
    }
    Json closing = nullptr;
    if (const auto& figure = cell.result.closing) {
      closing = Json{{"speedup", figure->speedup},   {"low", figure->low},
                     {"high", figure->high},         {"busy", figure->busy},
                     {"baseline", figure->baseline}, {"rounds", figure->rounds}};
    }
    cells.push_back(Json{{"key", cell.key},
                         {"series", cell.result.series},
                         {"variant", cell.variant},
                         {"warm", cell.warm},
                         {"task", cell.result.task},
                         {"seed", cell.result.seed},
                         {"run", cell.result.run_id},
                         {"state", cell.result.state},
                         {"final_percent", cell.result.final_percent()},
                         {"final_speedup", cell.result.final_speedup()},
                         {"busy", cell.result.has_result() && cell.result.busy()},
                         {"closing", closing},
                         {"curve", curve}});
  }
  Json rows = Json::array();
  for (const study::SeriesTask& row : answers.rows) {
    Json costs = Json::object();
    for (const auto& [axis, band] : row.cost_to_reach) {
      costs[std::string(study::axis_name(axis))] = band_json(band);
    }
    rows.push_back(Json{{"series", row.series},
                        {"task", row.task},
                        {"cells", row.cells},
                        {"reached", row.reached},
                        {"busy", row.busy},
                        {"final_percent", band_json(row.final_percent)},
                        {"final_speedup", band_json(row.final_speedup)},
                        {"cost_to_reach", costs}});
  }
  Json curves = Json::array();
  for (const study::Curve& curve : answers.curves) {
    Json ys = Json::array();
    for (const study::Band& band : curve.y) ys.push_back(band_json(band));
    curves.push_back(Json{{"series", curve.series},
                          {"task", curve.task},
                          {"axis", std::string(study::axis_name(curve.axis))},
                          {"x", curve.x},
                          {"y", ys}});
  }
  Json comparisons = Json::array();
  for (const study::Comparison& c : answers.comparisons) {
    comparisons.push_back(Json{{"a", c.a},
                               {"b", c.b},
                               {"measure", c.measure},
                               {"axis", std::string(study::axis_name(c.axis))},
                               {"ratio", c.ratio},
                               {"low", c.low},
                               {"high", c.high},
                               {"pairs", c.pairs},
                               {"left_out", c.left_out},
                               {"shown", c.shown},
                               {"sentence", c.sentence}});
  }
  Json axes = Json::array();
  for (study::CostAxis axis : answers.axes) axes.push_back(std::string(study::axis_name(axis)));
  return Json{{"kind", "study"},
              {"study", Json{{"id", view.study.id},
                             {"name", view.study.name},
                             {"path", view.study.path},
                             {"content_hash", view.study.content_hash},
                             {"state", view.study.state},
                             {"budget", view.study.detail.value("budget", Json::object())}}},
              {"about", "budget, the same for every cell: " +
                            budget_text(view.study.detail.value("budget", Json::object())) +
                            ". Memory order: " + memory_order_text(view.memory_order) + "."},
              {"fraction", answers.fraction},
              {"final_figures", view.final_figures_text()},
              {"closing_round", Json{{"rounds", view.closing_rounds},
                                     {"skipped", view.closing_skipped},
                                     {"cells", view.closing_cells},
                                     {"ended_cells", view.ended_cells}}},
              {"busy_legend", std::string(search::kBusyLegend)},
              {"memory_order", view.memory_order},
              {"series", answers.series},
              {"tasks", answers.tasks},
              {"axes", axes},
              {"best_found", answers.best_found},
              {"rows", rows},
              {"curves", curves},
              {"comparisons", comparisons},
              {"cells", cells}};
}

std::string study_html(const StudyView& view, const study::Answers& answers) {
  return html_page(fmt::format("accelopt study {}: {}", view.study.id, view.study.name),
                   fmt::format("{} cells; {}", view.cells.size(), view.study.state),
                   study_json(view, answers), kStudyScript);
}

std::string study_csv(const StudyView& view) {
  std::ostringstream out;
  out << "study,series,task,seed,run,state,point,evaluations,tokens,dollars,seconds,"
         "percent_of_peak,busy\n";
  for (const auto& cell : view.cells) {
    const auto& r = cell.result;
    for (size_t index = 0; index < r.curve.size(); ++index) {
      const study::Point& p = r.curve[index];
      out << fmt::format("{},{},{},{},{},\"{}\",{},{},{},{},{},{},{}\n", view.study.id, r.series,
                         r.task, r.seed, r.run_id, r.state, index, p.evaluations, p.tokens, p.usd,
                         p.seconds, p.percent, p.busy ? 1 : 0);
    }
    if (r.curve.empty()) {
      out << fmt::format("{},{},{},{},{},\"{}\",,,,,,,\n", view.study.id, r.series, r.task, r.seed,
                         r.run_id, r.state);
    }
  }
  return out.str();
}

}  // namespace accelopt::report
