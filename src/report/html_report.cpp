#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>

#include "report/line_diff.h"
#include "report/run_text.h"

namespace accelopt::report {

// Seconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.mmm][Z]" (or a space for the T).
std::optional<double> parse_utc(const std::string& text) {
  if (text.size() < 19) return std::nullopt;
  std::tm time{};
  std::string head = text.substr(0, 19);
  head[10] = 'T';
  if (strptime(head.c_str(), "%Y-%m-%dT%H:%M:%S", &time) == nullptr) return std::nullopt;
  double seconds = static_cast<double>(timegm(&time));
  if (text.size() > 20 && text[19] == '.') seconds += std::atof(("0" + text.substr(19, 4)).c_str());
  return seconds;
}

namespace {

Json entry_json(const store::MemoryEntryRecord& entry) {
  return Json{
      {"id", entry.id},
      {"run", entry.run_id},
      {"task", entry.task},
      {"positive", entry.positive},
      {"speedup", entry.speedup},
      {"speedup_low", entry.speedup_low},
      {"speedup_high", entry.speedup_high},
      {"iteration", entry.iteration},
      {"slow", entry.slow_candidate},
      {"fast", entry.fast_candidate},
      {"title", one_line(entry.insight.value("title", ""), 160)},
      {"text", entry.insight.value("text", entry.insight.value("body", ""))},
      {"imported_from",
       entry.insight.contains("detail") ? entry.insight["detail"].value("imported_from", "") : ""}};
}

// One point per checkpoint: the beam's best (which beat its parent beyond noise) after that many
// evaluations, seconds since the run began, and dollars spent on model calls. Its % of peak is
// derived from the run's scale, like every figure of the page (search/figures.h).
Json progress_points(const RunView& view) {
  Json points = Json::array();
  std::optional<double> start = parse_utc(view.run.created_at);
  std::vector<std::pair<double, double>> spend;  // (time, cumulative usd)
  double usd = 0;
  for (const auto& call : view.calls) {
    usd += call.cost_usd;
    spend.emplace_back(parse_utc(call.timestamp).value_or(0), usd);
  }
  for (const auto& checkpoint : view.checkpoints) {
    auto beam = view.beam_of(checkpoint);
    if (beam.empty()) continue;
    search::Figures best = view.figures(search::fastest(beam, view.comparisons).candidate);
    std::optional<double> at = parse_utc(checkpoint.created_at);
    double spent = 0;
    for (const auto& [time, total] : spend) {
      if (!at || time <= *at) spent = total;
    }
    points.push_back(Json{{"iteration", checkpoint.iteration},
                          {"evaluations", view.evaluations(checkpoint.iteration)},
                          {"seconds", start && at ? std::max(0.0, *at - *start) : 0.0},
                          {"usd", spent},
                          {"percent", best.percent_of_peak},
                          {"speedup", best.speedup}});
  }
  return points;
}

// What a figure needs said beside it: measured on a busy machine, over the measured ceiling.
std::string figures_note(const search::Figures& figures) {
  std::string note;
  if (figures.busy) note = "measured while the machine was busy";
  if (figures.percent_of_peak > 100) {
    note += (note.empty() ? "" : "; ") + std::string(kernel::kOverCeiling);
  }
  return note;
}

// A kernel's counted FLOPs (FMA and other arithmetic) and bytes, as its verdict's roofline score
// keeps them; nullopt without a score or with no work counted (or a count that is not finite).
struct CountedWork {
  double flops = 0, bytes = 0;
};
std::optional<CountedWork> counted_work(const kernel::Verdict* verdict) {
  if (verdict == nullptr || !verdict->roofline) return std::nullopt;
  const kernel::RooflineScore& score = *verdict->roofline;
  double flops = score.mm_flops + score.vec_flops;
  if (!(flops > 0 && score.bytes > 0) || !std::isfinite(flops) || !std::isfinite(score.bytes))
    return std::nullopt;
  return CountedWork{flops, score.bytes};
}

// Where candidate `id` sits on the roofline: its counted work's intensity (FLOP/byte) and the
// GFLOP/s it attains at the run's latency for it (the baseline's careful latency over its
// speedup: the figure every table shows), with the interval the speedup's allows. Null for a
// kernel that failed or whose work was not counted.
Json roofline_point(const RunView& view, int64_t id, const search::Figures& figures) {
  const kernel::Verdict* verdict = view.verdict(id);
  std::optional<CountedWork> work = counted_work(verdict);
  if (!work || !verdict->passed() || !(figures.latency_seconds > 0)) return nullptr;
  auto gflops = [&](double seconds) { return seconds > 0 ? work->flops / seconds / 1e9 : 0.0; };
  return Json{{"intensity", work->flops / work->bytes},
              {"gflops",
               {gflops(figures.latency_seconds), gflops(figures.latency_high),
                gflops(figures.latency_low)}}};
}

// A ceiling as the baseline's score met it. A verdict keeps its counts and each ceiling's share
// of its latency (percent_memory = 100 * bytes / bandwidth / latency), not the ceilings; each is
// its count over its share of the latency. 0 where the count is 0: silu does no multiply-adds, so
// its verdicts say nothing of the FMA ceiling.
double ceiling_from_share(double count, double percent, double latency_seconds) {
  if (!(count > 0 && percent > 0 && latency_seconds > 0)) return 0;
  double ceiling = count / (percent / 100 * latency_seconds) / 1e9;
  return std::isfinite(ceiling) ? ceiling : 0;
}

// The measured ceilings the run's % of peak is against (the baseline's score: the probe's, at the
// task's working set, with the binding one timed alongside where the platform did so) and the
// task's peak, the GFLOP/s at which its counted work takes the least time the ceilings allow.
// Null when the baseline was not scored.
Json roofline_ceilings(const RunView& view) {
  const kernel::Verdict* baseline = view.baseline();
  std::optional<CountedWork> work = counted_work(baseline);
  if (!work || !baseline->passed() || !baseline->timing) return nullptr;
  const kernel::RooflineScore& score = *baseline->roofline;
  double latency = baseline->timing->latency_seconds;
  if (!(score.peak_seconds > 0 && latency > 0) || !std::isfinite(score.peak_seconds))
    return nullptr;
  Json ceilings = Json::array();
  auto add = [&](const std::string& bound, double count, double percent) {
    double value = ceiling_from_share(count, percent, latency);
    if (value <= 0) return;
    bool alongside = score.ceiling_alongside > 0 && score.bound == bound;
    ceilings.push_back(Json{{"bound", bound},
                            {"value", value},
                            {"probe", alongside ? score.ceiling_probe : value},
                            {"alongside", alongside}});
  };
  add("fma", score.mm_flops, score.percent_fma);
  add("vector", score.vec_flops, score.percent_vector);
  add("memory", score.bytes, score.percent_memory);
  return Json{{"flops", work->flops},
              {"bytes", work->bytes},
              {"intensity", work->flops / work->bytes},
              {"bound", score.bound},
              {"peak_gflops", work->flops / score.peak_seconds / 1e9},
              {"ceilings", ceilings}};
}

Json lineage_nodes(const RunView& view) {
  std::map<int64_t, int> final_rank;
  for (size_t rank = 0; rank < view.final_beam.size(); ++rank)
    final_rank[view.final_beam[rank].candidate] = static_cast<int>(rank) + 1;
  Json nodes = Json::array();
  for (const auto& candidate : view.candidates) {
    const kernel::Verdict* verdict = view.verdict(candidate.id);
    const store::CandidateRecord* parent =
        candidate.parent ? view.candidate(*candidate.parent) : nullptr;
    auto trace = view.traces.find(candidate.id);
    search::Figures figures = view.figures(candidate.id);
    Json node{{"id", candidate.id},
              {"parent", parent ? Json(parent->id) : Json(nullptr)},
              {"iteration", candidate.iteration},
              {"kind", store::kind_name(candidate.kind)},
              {"author", candidate.author},
              {"plan", candidate.plan.value("text", "")},
              {"title", one_line(candidate.plan.value("text", ""), 100)},
              {"status", verdict ? std::string(kernel::status_name(verdict->status)) : "?"},
              {"passed", verdict && verdict->passed()},
              {"figures", candidate_figures(view, candidate.id)},
              {"moved", moved_line(view, candidate.id)},
              {"speedup", {figures.speedup, figures.speedup_low, figures.speedup_high}},
              {"percent", {figures.percent_of_peak, figures.percent_low, figures.percent_high}},
              {"note", figures_note(figures)},
              {"busy", figures.busy},
              {"roofline", roofline_point(view, candidate.id, figures)},
              {"message", verdict ? verdict->message : ""},
              {"beam", final_rank.count(candidate.id) ? final_rank[candidate.id] : 0},
              {"reused_from", trace != view.traces.end() && trace->second.reused_from
                                  ? Json(*trace->second.reused_from)
                                  : Json(nullptr)},
              {"diff", parent ? unified_diff(parent->source, candidate.source,
                                             fmt::format("#{}", parent->id),
                                             fmt::format("#{}", candidate.id))
                              : candidate.source}};
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Json cost_rows(const RunView& view) {
  std::map<std::pair<std::string, std::string>, llm::CallTotals> totals;
  for (const auto& call : view.calls) totals[{call.role, call.model}].add(call);
  Json rows = Json::array();
  for (const auto& [key, total] : totals) {
    rows.push_back(Json{{"role", key.first},
                        {"model", key.second},
                        {"calls", total.calls},
                        {"failed", total.failed_calls},
                        {"tokens", total.prompt_tokens + total.completion_tokens},
                        {"usd", total.cost_usd},
                        {"seconds", total.latency_s}});
  }
  return rows;
}

Json final_table(const RunView& view) {
  Json rows = Json::array();
  int rank = 0;
  for (const auto& kernel : view.final_beam) {
    const store::CandidateRecord* candidate = view.candidate(kernel.candidate);
    search::Figures figures = view.figures(kernel.candidate);
    rows.push_back(
        Json{{"rank", ++rank},
             {"id", kernel.candidate},
             {"author", candidate ? candidate->author : ""},
             {"iteration", candidate ? candidate->iteration : 0},
             {"percent", figures.percent_of_peak},
             {"speedup", figures.speedup},
             {"figures", candidate_figures(view, kernel.candidate)},
             {"moved", moved_line(view, kernel.candidate)},
             {"plan", candidate ? one_line(candidate->plan.value("text", ""), 120) : ""}});
  }
  return rows;
}

// JSON inside <script>: "</" would end the element early.
std::string script_safe(const std::string& json) {
  std::string safe;
  safe.reserve(json.size());
  for (size_t index = 0; index < json.size(); ++index) {
    if (json[index] == '<' && index + 1 < json.size() && json[index + 1] == '/') {
      safe += "<\\/";
      ++index;
    } else {
      safe += json[index];
    }
  }
  return safe;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d2330;
       background: #f6f7f9; }
header { background: #1d2330; color: #fff; padding: 18px 32px; }
header h1 { margin: 0; font-size: 20px; font-weight: 600; }
header p { margin: 4px 0 0; color: #b9c0cc; }
main { padding: 8px 32px 48px; max-width: 1400px; }
section { background: #fff; border: 1px solid #e1e4ea; border-radius: 8px; margin: 18px 0;
          padding: 14px 18px; }
h2 { font-size: 16px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; color: #475066; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 12px; }
.pair { grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); }
.chart { height: 280px; }
.roomy { height: 340px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
th { color: #475066; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.tree-row { display: grid; grid-template-columns: 3fr 2fr; gap: 12px; }
.details { border-left: 3px solid #d6dae3; padding: 0 12px; max-height: 640px; overflow: auto; }
pre { background: #f4f5f8; padding: 8px; overflow: auto; font-size: 12px; white-space: pre-wrap; }
.add { color: #116329; background: #dafbe1; display: block; }
.del { color: #82071e; background: #ffebe9; display: block; }
.hunk { color: #6a737d; display: block; }
.muted { color: #6a737d; }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 12px; color: #fff; }
.key { font-size: 12px; color: #475066; }
.moved { color: #8A4B00; font-weight: 600; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; border: 3px solid;
          vertical-align: middle; margin-right: 4px; }
)css";

// Draws every chart from the JSON in <script id="report-data">, then writes its findings into
// <div id="render-check"> for headless tests.
constexpr const char* kScript = R"js(
(function () {
  const errors = [];
  window.addEventListener('error', (e) => errors.push(String(e.message)));
  const consoleError = console.error;
  console.error = function () { errors.push(Array.from(arguments).join(' ')); consoleError.apply(console, arguments); };
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const charts = [];
  const fitters = [];  // each chart's fitChrome, again on a resize
  // Okabe and Ito's palette: told apart with any colour vision. Gold rings only the final beam.
  const colors = { PASSED: '#009E73', COMPILE_ERROR: '#D55E00', RUNTIME_ERROR: '#CC79A7',
    TIMEOUT: '#0072B2', INCORRECT_SHAPE: '#56B4E9', INCORRECT_NUMERICAL: '#E69F00',
    REJECTED_SOURCE: '#555555', REJECTED_PHYSICS: '#000000', MACHINE_BUSY: '#CCCCCC' };
  const unknownColor = '#DDDDDD';
  const gold = '#F0B400';
  const largeTree = 60;  // candidates beyond which a lineage opens on the final beam's ancestry
  const el = (tag, attrs, text) => { const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
    if (text !== undefined) e.textContent = text; return e; };
  const chart = (parent, option, cls) => { const div = el('div', { class: cls || 'chart' });
    parent.appendChild(div); const c = echarts.init(div); c.setOption(option); charts.push(c);
    const base = { height: div.clientHeight, top: option.grid ? option.grid.top : 0, bottom: option.grid ? option.grid.bottom : 0 };
    const fit = () => fitChrome(c, div, option, base); fit(); fitters.push(fit); return c; };
  // The drawn box of a chart's component (its title, its legend), in the chart's pixels.
  function drawnRect(c, mainType) {
    const model = c.getModel().getComponent(mainType); const view = model && c.getViewOfComponentModel(model);
    if (!view || !view.group) return null;
    const rect = view.group.getBoundingRect(); if (!rect.width && !rect.height) return null;
    const drawn = rect.clone(); drawn.applyTransform(view.group.getComputedTransform()); return drawn;
  }
  // Titles wrap to the chart's width and legends are plain (every entry shown, wrapped to rows
  // under the plot): the chart grows by what they need, so that at any width none is cut or paged.
  // `base`: the chart's height and the grid's margins for its axes, without title and legend.
  function fitChrome(c, div, option, base) {
    const width = Math.max(120, div.clientWidth - 24);
    if (option.title) c.setOption({ title: { left: 8, textStyle: { width: width, overflow: 'break' }, subtextStyle: { width: width, overflow: 'break' } } });
    if (option.legend) c.setOption({ legend: { textStyle: { width: width - 40, overflow: 'break', lineHeight: 15 } } });
    const title = option.title ? drawnRect(c, 'title') : null;
    const legend = option.legend ? drawnRect(c, 'legend') : null;
    const titleHeight = title ? Math.ceil(title.y + title.height) + 4 : 0;
    const legendHeight = legend ? Math.ceil(legend.height) + 8 : 0;
    div.style.height = (base.height + titleHeight + legendHeight) + 'px'; c.resize();
    if (option.grid) c.setOption({ grid: { top: base.top + titleHeight, bottom: base.bottom + legendHeight } });
  }
  const escapeHtml = (text) => String(text).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
  const fmt = (x, d) => (x === null || x === undefined) ? '-' : Number(x).toFixed(d);
  // 0.01234 and 1234, not 0.0123 and 1234.0000: a latency's digits are significant ones.
  const significant = (x, digits) => (x === null || x === undefined) ? '-' : String(Number(Number(x).toPrecision(digits)));
  function table(parent, columns, rows) {
    const t = el('table'); const head = el('tr');
    columns.forEach((c) => head.appendChild(el('th', {}, c[0]))); t.appendChild(head);
    rows.forEach((r) => { const tr = el('tr'); columns.forEach((c) => {
      const v = c[1](r); const td = el('td', typeof v === 'number' ? { class: 'num' } : {});
      td.textContent = v; tr.appendChild(td); }); t.appendChild(tr); });
    if (!rows.length) { const tr = el('tr'); const td = el('td', { colspan: columns.length, class: 'muted' }, 'none');
      tr.appendChild(td); t.appendChild(tr); }
    parent.appendChild(t);
  }
  function section(title) { const s = el('section'); s.appendChild(el('h2', {}, title));
    document.querySelector('main').appendChild(s); return s; }

  function drawProgress(runs) {
    const s = section('Best kernel over the search');
    s.appendChild(el('p', { class: 'muted' }, 'The beam\'s best after each iteration (it had to beat its parent beyond noise). One line per run.'));
    const grid = el('div', { class: 'grid' }); s.appendChild(grid);
    const spenders = runs.filter((r) => r.model_calls > 0);
    const axes = [['evaluations', 'evaluations'], ['seconds', 'wall time (s)']];
    if (spenders.length) axes.push(['usd', 'model spend ($)']);
    [['percent', '% of peak'], ['speedup', 'speedup over the baseline']].forEach(([y, yname]) => {
      axes.forEach(([x, xname]) => chart(grid, {
        title: { text: yname + ' vs ' + xname, textStyle: { fontSize: 13 } },
        tooltip: { trigger: 'axis' }, legend: { bottom: 0, left: 8, right: 8 },
        grid: { left: 48, right: 16, top: 16, bottom: 40 },
        xAxis: { type: 'value', name: xname, nameLocation: 'middle', nameGap: 24, scale: x !== 'usd' },
        yAxis: { type: 'value', scale: true },
        series: (x === 'usd' ? spenders : runs).map((r) => ({ name: r.label, type: 'line', step: 'end', symbolSize: 6,
          data: r.progress.map((p) => [p[x], p[y]]) })) }));
    });
    const tuners = runs.filter((r) => !r.model_calls).map((r) => r.label);
    if (tuners.length === runs.length) {
      s.appendChild(el('p', { class: 'muted no-model-calls' }, 'No model calls (the built-in tuner): nothing to plot against model spend.'));
    } else if (tuners.length) {
      s.appendChild(el('p', { class: 'muted no-model-calls' }, 'Not plotted against model spend, having made no model calls: ' + tuners.join(', ') + '.'));
    }
  }

  // The run's candidates as a tree, and the ancestry of its final beam.
  function lineageModel(run) {
    const byId = new Map(run.nodes.map((n) => [n.id, { node: n, children: [] }]));
    const roots = [];
    byId.forEach((t) => { const p = t.node.parent !== null && byId.get(t.node.parent); (p ? p.children : roots).push(t); });
    const ancestry = new Set();
    run.nodes.filter((n) => n.beam).forEach((n) => {
      for (let t = byId.get(n.id); t && !ancestry.has(t.node.id); t = byId.get(t.node.parent)) ancestry.add(t.node.id);
    });
    const size = (t) => t.children.reduce((sum, c) => sum + size(c), 1);
    return { roots, ancestry, size, large: run.nodes.length > largeTree };
  }

  // A large tree shows the final beam's ancestry; a node's other children fold into one "+N more"
  // node until it is clicked (`opened`).
  function treeData(run, model, opened) {
    const shape = (t) => { const n = t.node;
      return { name: '#' + n.id, id: n.id, beam: n.beam, value: n.figures || n.status,
        symbol: 'circle', symbolSize: n.beam ? 16 : 10,
        itemStyle: { color: colors[n.status] || unknownColor, borderColor: n.beam ? gold : '#FFFFFF', borderWidth: n.beam ? 3 : 1 },
        children: childrenOf(t) }; };
    const childrenOf = (t) => {
      if (!model.large || opened.has(t.node.id)) return t.children.map(shape);
      const shown = t.children.filter((c) => model.ancestry.has(c.node.id));
      const folded = t.children.filter((c) => !model.ancestry.has(c.node.id));
      const nodes = shown.map(shape);
      if (folded.length) {
        const all = folded.reduce((sum, c) => sum + model.size(c), 0);
        nodes.push({ name: '+' + folded.length + ' more', group: t.node.id, symbol: 'roundRect', symbolSize: [14, 10],
          value: all + ' candidates; click to show', itemStyle: { color: '#FFFFFF', borderColor: '#6A737D', borderWidth: 1 } });
      }
      return nodes;
    };
    const tops = (model.large ? model.roots.filter((t) => !model.ancestry.size || model.ancestry.has(t.node.id)) : model.roots).map(shape);
    return tops.length === 1 ? tops[0] : { name: run.label, symbol: 'circle', children: tops, itemStyle: { color: '#444444' } };
  }

  function leafCount(item) {
    return item.children && item.children.length ? item.children.reduce((sum, c) => sum + leafCount(c), 0) : 1;
  }

  function showNode(run, id, box) {
    const n = run.nodes.find((m) => m.id === id); box.innerHTML = '';
    if (!n) { box.appendChild(el('p', { class: 'muted' }, 'Click a candidate.')); return; }
    box.appendChild(el('h3', {}, '#' + n.id + ' ' + n.kind + ' by ' + n.author + ', iteration ' + n.iteration));
    const badge = el('span', { class: 'badge' }, n.status); badge.style.background = colors[n.status] || unknownColor;
    const verdict = el('p', { class: 'figures' }); verdict.appendChild(badge);
    const interval = (f, d, unit) => fmt(f[0], d) + unit + ' [' + fmt(f[1], d) + ', ' + fmt(f[2], d) + ']';
    if (n.passed) verdict.appendChild(document.createTextNode('  ' + interval(n.speedup, 2, 'x') + ',  ' + interval(n.percent, 1, '% of peak')));
    box.appendChild(verdict);
    if (n.passed && n.note) box.appendChild(el('p', { class: 'moved' }, '\u26A0 ' + n.note));
    if (n.passed) box.appendChild(el('p', { class: 'muted' }, 'The run\'s figure: the baseline\'s, timed once carefully, times the speedup.'));
    if (n.moved) box.appendChild(el('p', { class: 'moved' }, '\u26A0 ' + n.moved));
    if (n.message) box.appendChild(el('p', { class: 'muted' }, n.message));
    if (n.reused_from !== null) box.appendChild(el('p', { class: 'muted' }, 'same source as #' + n.reused_from + ': its evaluation reused'));
    box.appendChild(el('h3', {}, 'plan')); box.appendChild(el('pre', {}, n.plan || '(none)'));
    box.appendChild(el('h3', {}, n.parent === null ? 'source' : 'diff against #' + n.parent));
    const pre = el('pre');
    (n.diff || '(identical to its parent)').split('\n').forEach((line) => {
      const cls = /^(@@|---|\+\+\+)/.test(line) ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : '';
      const span = el('span', cls ? { class: cls } : {}, line + (cls ? '' : '\n')); pre.appendChild(span); });
    box.appendChild(pre);
  }

  function statusKey(run) {
    const key = el('p', { class: 'key' });
    const swatch = (color, border, text) => { const span = el('span', { class: 'swatch' }); span.style.background = color;
      span.style.borderColor = border; key.appendChild(span); key.appendChild(document.createTextNode(text + '  ')); };
    Object.keys(colors).filter((status) => run.nodes.some((n) => n.status === status)).forEach((status) => swatch(colors[status], '#FFFFFF', status));
    swatch(colors.PASSED, gold, 'gold ring: in the final beam');
    return key;
  }

  // What the lineage chart drew, read from its graphic elements and canvas pixels, for the tests.
  function checkLineage(run, c, div) {
    const data = c.getModel().getSeriesByIndex(0).getData();
    const canvas = div.querySelector('canvas'); const context = canvas.getContext('2d');
    const ratio = c.getDevicePixelRatio();
    const isGold = (x, y) => { const [r, g, b] = context.getImageData(Math.round(x * ratio), Math.round(y * ratio), 1, 1).data;
      return Math.abs(r - 240) < 40 && Math.abs(g - 180) < 40 && b < 90; };
    let drawn = 0, final = 0, goldStroke = 0, goldPixels = 0; const labels = [], symbols = [];
    for (let i = 0; i < data.count(); ++i) {
      const group = data.getItemGraphicEl(i); const symbol = group && group.childAt(0);
      if (!symbol || group.ignore || group.invisible) continue;
      ++drawn;
      const text = symbol.getTextContent();
      if (text && !text.ignore && !text.invisible) { const rect = text.getBoundingRect().clone(); rect.applyTransform(text.getComputedTransform()); labels.push([i, rect]); }
      const area = symbol.getBoundingRect().clone(); area.applyTransform(symbol.getComputedTransform()); symbols.push([i, area]);
      const item = data.getRawDataItem(i);
      if (!item || !item.beam) continue;
      ++final;
      if (String(symbol.style.stroke).toUpperCase() === gold && symbol.style.lineWidth >= 2) ++goldStroke;
      const box = symbol.getBoundingRect().clone(); box.applyTransform(symbol.getComputedTransform());
      const cx = box.x + box.width / 2, cy = box.y + box.height / 2, radius = item.symbolSize / 2;
      const around = [45, 135, 225, 315].filter((deg) => isGold(cx + radius * Math.cos(deg * Math.PI / 180), cy + radius * Math.sin(deg * Math.PI / 180)));
      if (around.length >= 3) ++goldPixels;
    }
    let overlaps = 0;
    // A label over another label, or over another candidate's node.
    labels.forEach(([i, a], k) => {
      labels.slice(k + 1).forEach(([, b]) => { if (a.intersect(b)) ++overlaps; });
      symbols.forEach(([j, b]) => { if (i !== j && a.intersect(b)) ++overlaps; });
    });
    let check = document.querySelector('#render-check .lineage[data-run="' + run.id + '"]');
    if (!check) { check = el('div', { class: 'lineage', 'data-run': run.id }); document.getElementById('render-check').appendChild(check); }
    Object.entries({ nodes: run.nodes.length, drawn: drawn, final: final, 'gold-stroke': goldStroke, 'gold-pixels': goldPixels,
      labels: labels.length, 'label-overlaps': overlaps }).forEach(([k, v]) => check.setAttribute('data-' + k, String(v)));
  }

  function drawLineage(run) {
    const s = section('Lineage of ' + run.label);
    const model = lineageModel(run);
    s.appendChild(el('p', { class: 'muted' }, 'Colour: status. Gold ring: in the final beam. Click a candidate for its plan, verdict and diff; drag to pan, scroll to zoom.' +
      (model.large ? ' ' + run.nodes.length + ' candidates: the tree opens on the final beam\'s ancestry; click "+N more" to show a node\'s other children.' : '')));
    s.appendChild(statusKey(run));
    const row = el('div', { class: 'tree-row' }); s.appendChild(row);
    const holder = el('div'); row.appendChild(holder);
    const box = el('div', { class: 'details' }); row.appendChild(box);
    const div = el('div', { class: 'chart' }); holder.appendChild(div);
    const c = echarts.init(div); charts.push(c);
    const opened = new Set();
    const draw = () => {
      const root = treeData(run, model, opened);
      div.style.height = Math.min(8000, Math.max(360, leafCount(root) * 24 + 32)) + 'px'; c.resize();
      c.setOption({ animation: false, tooltip: { trigger: 'item', formatter: (p) => p.name + '<br>' + (p.value || '') },
        series: [{ type: 'tree', data: [root], orient: 'LR', top: 16, bottom: 16, left: 64, right: 120,
          initialTreeDepth: -1, expandAndCollapse: false, roam: true,
          label: { fontSize: 11, position: 'left', verticalAlign: 'middle', align: 'right' },
          leaves: { label: { position: 'right', verticalAlign: 'middle', align: 'left' } },
          labelLayout: { hideOverlap: true }, emphasis: { focus: 'ancestor' },
          lineStyle: { color: '#C7CCD6' } }] });
    };
    c.on('click', (p) => {
      if (!p.data) return;
      if (p.data.group !== undefined) { opened.add(p.data.group); draw(); } else if (p.data.id !== undefined) showNode(run, p.data.id, box);
    });
    const check = () => { try { checkLineage(run, c, div); } catch (e) { errors.push('lineage check: ' + e);
      document.getElementById('render-check').setAttribute('data-errors', errors.join(' | ')); } };
    c.on('finished', check);
    draw(); check();
    const best = run.final.length ? run.final[0].id : (run.nodes.length ? run.nodes[0].id : null);
    showNode(run, best, box);
  }

  // Every candidate of a run, and its passing kernels on the roofline.
  const roleSymbols = { baseline: 'diamond', executor: 'circle', fixer: 'triangle', tuner: 'rect' };
  const roleGlyphs = { baseline: '\u25C6', executor: '\u25CF', fixer: '\u25B2', tuner: '\u25A0' };
  function candidateKey(run) {
    const key = el('p', { class: 'key' });
    const roles = [...new Set(run.nodes.map((n) => n.kind))];
    key.appendChild(document.createTextNode('Shape: ' + roles.map((r) => (roleGlyphs[r] || '\u25CF') + ' ' + r).join('   ') +
      '.   Colour: status (legend).   Hollow: measured while the machine was busy.   Gold ring: the run\'s best.'));
    return key;
  }

  function drawCandidates(run) {
    const s = section('Every candidate of ' + run.label);
    s.appendChild(el('p', { class: 'muted' }, 'The scatter: each candidate in the order evaluated, at its speedup over the baseline (log scale); ' +
      'the shaded bands are the iterations, so a band\'s vertical spread is what that iteration found. Failed candidates sit in the strip at the bottom. ' +
      'The roofline: the passing kernels against the measured ceilings; a kernel\'s height under the triangle is its % of peak. Hover a point for its plan and figures.'));
    s.appendChild(candidateKey(run));
    const grid = el('div', { class: 'grid pair' }); s.appendChild(grid);
    const scatter = drawScatter(grid, run);
    const roofline = drawRoofline(grid, run);
    const check = el('div', { class: 'candidates', 'data-run': run.id }); document.getElementById('render-check').appendChild(check);
    Object.entries(Object.assign({ nodes: run.nodes.length, busy: run.nodes.filter((n) => n.busy).length,
      kernels: run.nodes.filter((n) => n.passed && n.roofline).length }, checkScatter(scatter), checkRoofline(roofline)))
      .forEach(([k, v]) => check.setAttribute('data-' + k, String(v)));
  }

  // A point in a candidate's role's shape and its status's colour; hollow when measured on a busy
  // machine; the run's best ringed in gold.
  function candidatePoint(run, n, value) {
    const color = colors[n.status] || unknownColor; const best = run.best && run.best.id === n.id;
    return { value: value, id: n.id, busy: n.busy, failed: !n.passed, symbol: roleSymbols[n.kind] || 'pin', symbolSize: best || n.kind === 'baseline' ? 14 : 10,
      itemStyle: { color: n.busy ? '#FFFFFF' : color, borderColor: best ? gold : color, borderWidth: best ? 3 : n.busy ? 2 : 0.5 } };
  }

  function candidateTooltip(run, n) {
    const lines = ['#' + n.id + ' ' + n.kind + ' by ' + n.author + ', iteration ' + n.iteration];
    if (n.title) lines.push(n.title);
    lines.push(n.passed ? n.figures : n.status + (n.message ? ': ' + n.message : ''));
    if (n.passed && n.roofline) lines.push(significant(n.roofline.gflops[0], 4) + ' GFLOP/s [' + significant(n.roofline.gflops[1], 4) + ', ' +
      significant(n.roofline.gflops[2], 4) + '] at ' + significant(n.roofline.intensity, 4) + ' FLOP/byte');
    if (n.note) lines.push('\u26A0 ' + n.note);
    if (n.moved) lines.push('\u26A0 ' + n.moved);
    return lines.map(escapeHtml).join('<br>');
  }

  // x: the candidate's place in the order evaluated; y: its speedup over the baseline, on a log
  // scale, failed ones in a strip below every passing one.
  function drawScatter(parent, run) {
    const passing = run.nodes.filter((n) => n.passed && n.speedup[0] > 0);
    const lowest = Math.min(1, ...passing.map((n) => n.speedup[1] > 0 ? n.speedup[1] : n.speedup[0]));
    const failedAt = Math.pow(2, Math.floor(Math.log2(lowest)) - 1);
    const order = new Map(run.nodes.map((n, index) => [n.id, index]));
    const statuses = [...new Set(run.nodes.map((n) => n.status))];
    const iterations = [...new Set(run.nodes.map((n) => n.iteration))].sort((a, b) => a - b);
    const labelEvery = Math.ceil(iterations.length / 12);
    const bands = iterations.map((it, k) => { const at = run.nodes.map((n, i) => [n, i]).filter(([n]) => n.iteration === it).map(([, i]) => i);
      return [{ xAxis: Math.min(...at) - 0.5, name: k % labelEvery ? '' : 'it. ' + it, itemStyle: { color: k % 2 ? '#EEF0F5' : '#F8F9FB' } },
        { xAxis: Math.max(...at) + 0.5 }]; });
    bands.push([{ yAxis: failedAt / 2, name: 'failed', itemStyle: { color: '#FBECE6' }, label: { position: 'left', fontSize: 12 } },
      { yAxis: failedAt * Math.SQRT2 }]);
    const byId = new Map(run.nodes.map((n) => [n.id, n]));
    const series = statuses.map((status) => ({ name: status, type: 'scatter', itemStyle: { color: colors[status] || unknownColor },
      data: run.nodes.filter((n) => n.status === status).map((n) => candidatePoint(run, n, [order.get(n.id), n.passed && n.speedup[0] > 0 ? n.speedup[0] : failedAt])) }));
    series.push({ name: 'iterations', type: 'scatter', data: [], silent: true,
      markArea: { silent: true, label: { fontSize: 10, color: '#6A737D', position: 'insideTop' }, data: bands } });
    return chart(parent, {
      title: { text: 'Speedup over the baseline of every candidate, in the order evaluated', textStyle: { fontSize: 13 } },
      tooltip: { trigger: 'item', formatter: (p) => p.data && byId.has(p.data.id) ? candidateTooltip(run, byId.get(p.data.id)) : '' },
      legend: { bottom: 0, left: 8, right: 8, data: statuses },
      grid: { left: 56, right: 16, top: 12, bottom: 40 },
      xAxis: { type: 'value', name: 'candidate (bands: iterations)', nameLocation: 'middle', nameGap: 24, min: -0.5, max: run.nodes.length - 0.5,
        minInterval: 1, splitLine: { show: false }, axisLabel: { formatter: (v) => Number.isInteger(v) ? String(v) : '' } },
      yAxis: { type: 'log', logBase: 2, min: failedAt / 2,
        axisLabel: { formatter: (v) => v < failedAt * Math.SQRT2 ? '' : significant(v, 3) + 'x' } },
      series: series }, 'chart roomy');
  }

  // The classic roofline, log on both axes: GFLOP/s a kernel attains against the FLOPs per byte
  // its counted work does, under the memory slope and the arithmetic ceilings.
  function drawRoofline(parent, run) {
    const roof = run.roofline;
    if (!roof) {
      parent.appendChild(el('p', { class: 'muted no-roofline' }, 'No roofline: the baseline was not scored against measured ceilings (no probe of this machine, or the baseline failed).'));
      return null;
    }
    const kernels = run.nodes.filter((n) => n.passed && n.roofline);
    const memory = roof.ceilings.find((c) => c.bound === 'memory');
    const compute = roof.ceilings.filter((c) => c.bound !== 'memory');
    const top = Math.max(0, ...compute.map((c) => c.value));
    const ridges = memory ? compute.map((c) => c.value / memory.value) : [];
    const xs = kernels.map((n) => n.roofline.intensity).concat(ridges, [roof.intensity]);
    // Whole decades, with room on both sides of the points and the ridges.
    const xmin = Math.pow(10, Math.floor(Math.log10(Math.min(...xs) / 2))), xmax = Math.pow(10, Math.ceil(Math.log10(Math.max(...xs) * 2)));
    const unit = (c) => c.bound === 'memory' ? ' GB/s' : ' GFLOP/s';
    const ceilingName = (c) => (c.bound === 'fma' ? 'FMA' : c.bound) + ' ' + significant(c.value, 3) + unit(c) +
      (c.alongside ? ' (timed alongside; probe ' + significant(c.probe, 3) + ')' : '');
    const line = (c, data) => ({ name: ceilingName(c), type: 'line', data: data, symbol: 'none', ceiling: c.bound,
      lineStyle: { width: 2, type: c.bound === roof.bound ? 'solid' : 'dashed' }, tooltip: { formatter: ceilingName(c) + ' (measured ceiling)' } });
    const series = [];
    if (memory) { const end = top > 0 ? Math.min(xmax, top / memory.value) : xmax;
      series.push(line(memory, [[xmin, memory.value * xmin], [end, memory.value * end]])); }
    compute.forEach((c) => { const start = memory ? Math.max(xmin, c.value / memory.value) : xmin;
      series.push(line(c, [[start, c.value], [xmax, c.value]])); });
    const byId = new Map(kernels.map((n) => [n.id, n]));
    const isBest = (n) => run.best && run.best.id === n.id;
    // The series' own symbol and style are what its legend entry shows.
    const group = (name, keep, symbol, itemStyle) => ({ name: name, type: 'scatter', symbol: symbol, itemStyle: itemStyle, kernel: true,
      data: kernels.filter(keep).map((n) => candidatePoint(run, n, [n.roofline.intensity, n.roofline.gflops[0]])) });
    const green = { color: colors.PASSED };
    series.push(group('baseline', (n) => n.kind === 'baseline', 'diamond', green));
    series.push(group('other kernels', (n) => n.kind !== 'baseline' && !isBest(n), 'circle', green));
    if (run.best && byId.has(run.best.id) && byId.get(run.best.id).kind !== 'baseline')
      series.push(group('best', isBest, 'circle', { color: colors.PASSED, borderColor: gold, borderWidth: 3 }));
    series.push({ name: 'the task\'s peak', type: 'scatter', symbol: 'emptyTriangle', symbolSize: 12, itemStyle: { color: '#000000' },
      data: [[roof.intensity, roof.peak_gflops]], tooltip: { formatter: 'the task\'s peak: ' + significant(roof.peak_gflops, 4) +
        ' GFLOP/s, its counted work in the least time the ceilings allow (' + roof.bound + ' bound): 100 % of peak' } });
    const same = new Set(kernels.map((n) => n.roofline.intensity.toPrecision(6))).size <= 1;
    const work = significant(roof.flops, 6) + ' FLOP over ' + significant(roof.bytes, 6) + ' bytes (' + significant(roof.intensity, 3) + ' FLOP/byte)';
    return chart(parent, {
      title: { text: 'Roofline: GFLOP/s attained against the measured ceilings', textStyle: { fontSize: 13 },
        subtext: same ? 'Every kernel does the task\'s counted work, ' + work + ', so the points stack at one intensity; height is speed.'
          : 'Intensity: each kernel\'s counted work; the task\'s is ' + work + '.', subtextStyle: { fontSize: 11, lineHeight: 15, color: '#475066' } },
      tooltip: { trigger: 'item', formatter: (p) => p.data && byId.has(p.data.id) ? candidateTooltip(run, byId.get(p.data.id)) : p.seriesName },
      legend: { bottom: 0, left: 8, right: 8 },
      grid: { left: 56, right: 16, top: 30, bottom: 40 },
      xAxis: { type: 'log', name: 'arithmetic intensity (FLOP/byte)', nameLocation: 'middle', nameGap: 24, min: xmin, max: xmax,
        axisLabel: { formatter: (v) => significant(v, 2) } },
      yAxis: { type: 'log', name: 'GFLOP/s', axisLabel: { formatter: (v) => significant(v, 2) } },
      series: series }, 'chart roomy');
  }

  // What a chart's series drew, point by point: drawn, hollow (white fill), failed strip.
  function drawnPoints(c, keep) {
    const counts = { drawn: 0, hollow: 0, gold: 0, failed: 0, lowestPassed: Infinity, highestFailed: -Infinity };
    c.getModel().eachSeries((model) => {
      if (!keep(model)) return;
      const data = model.getData();
      for (let i = 0; i < data.count(); ++i) {
        const symbol = data.getItemGraphicEl(i); const path = symbol && symbol.childAt(0);
        if (!path || symbol.ignore || symbol.invisible) continue;
        ++counts.drawn;
        if (String(path.style.fill).toUpperCase() === '#FFFFFF') ++counts.hollow;
        if (String(path.style.stroke).toUpperCase() === gold) ++counts.gold;
        const item = data.getRawDataItem(i); const y = item && item.value ? item.value[1] : NaN;
        if (item && item.failed) { ++counts.failed; counts.highestFailed = Math.max(counts.highestFailed, y); }
        else counts.lowestPassed = Math.min(counts.lowestPassed, y);
      }
    });
    return counts;
  }

  function checkScatter(c) {
    const points = drawnPoints(c, (model) => model.get('name') !== 'iterations');
    const strip = c.getModel().getSeriesByName('iterations')[0];
    const areas = strip && strip.get('markArea') ? strip.get('markArea').data.length : 0;
    return { points: points.drawn, hollow: points.hollow, 'scatter-gold': points.gold, failed: points.failed,
      'failed-below': points.highestFailed < points.lowestPassed ? 1 : 0, bands: Math.max(0, areas - 1) };
  }

  function checkRoofline(c) {
    if (!c) return { 'roofline-points': 0, 'roofline-hollow': 0, ceilings: 0 };
    const points = drawnPoints(c, (model) => model.get('kernel') === true);
    const ceilings = c.getModel().getSeries().filter((m) => m.get('ceiling') && m.getData().count() === 2).length;
    return { 'roofline-points': points.drawn, 'roofline-hollow': points.hollow, ceilings: ceilings };
  }

  // Every chart's title inside the chart, every legend plain (none paged), inside, and clear of
  // the plot: what a person sees at this window's width.
  function checkLayout() {
    let titles = 0, clipped = 0, legends = 0, paged = 0, overlaps = 0;
    charts.forEach((c) => {
      const width = c.getWidth(), height = c.getHeight();
      const inside = (r) => r.x >= -1 && r.y >= -1 && r.x + r.width <= width + 1 && r.y + r.height <= height + 1;
      const title = drawnRect(c, 'title');
      if (title) { ++titles; if (!inside(title)) ++clipped; }
      const model = c.getModel().getComponent('legend');
      const legend = model && drawnRect(c, 'legend');
      if (!legend) return;
      ++legends;
      if (model.subType !== 'plain' || !inside(legend)) ++paged;
      const grid = c.getModel().getComponent('grid');
      const axis = drawnRect(c, 'xAxis');
      if (grid && grid.coordinateSystem && grid.coordinateSystem.getRect().intersect(legend)) ++overlaps;
      if (axis && axis.intersect(legend)) ++overlaps;
      if (title && title.intersect(legend)) ++overlaps;
    });
    return { width: window.innerWidth, titles: titles, 'clipped-titles': clipped, legends: legends, 'paged-legends': paged, 'legend-overlaps': overlaps };
  }

  function drawMemory(runs) {
    const s = section('Memory entries used and written');
    const columns = [['entry', (e) => '#' + e.id], ['task', (e) => e.task],
      ['from', (e) => e.imported_from ? 'imported: ' + e.imported_from : 'run ' + e.run + ', iteration ' + e.iteration],
      ['rewrite', (e) => '#' + e.slow + ' \u2192 #' + e.fast],
      ['speedup', (e) => (e.positive ? '+ ' : '- ') + fmt(e.speedup, 2) + 'x [' + fmt(e.speedup_low, 2) + ', ' + fmt(e.speedup_high, 2) + ']'],
      ['insight', (e) => e.title]];
    runs.forEach((r) => {
      s.appendChild(el('h3', {}, r.label + ': used (in memory when it started)')); table(s, columns, r.memory_used);
      s.appendChild(el('h3', {}, r.label + ': written')); table(s, columns, r.memory_written);
    });
  }

  function drawCost(runs) {
    const s = section('Cost by role and model');
    const rows = []; runs.forEach((r) => r.cost.forEach((c) => rows.push(Object.assign({ run: r.label }, c))));
    if (rows.length) {
      const keys = [...new Set(rows.map((c) => c.role + ' / ' + c.model))];
      chart(s, { tooltip: { trigger: 'axis' }, legend: { bottom: 0, left: 8, right: 8 }, grid: { left: 64, right: 16, top: 28, bottom: 32 },
        xAxis: { type: 'category', data: keys }, yAxis: { type: 'value', name: '$' },
        series: runs.map((r) => ({ name: r.label, type: 'bar',
          data: keys.map((k) => { const c = r.cost.find((x) => x.role + ' / ' + x.model === k); return c ? c.usd : 0; }) })) });
    }
    table(s, [['run', (c) => c.run], ['role', (c) => c.role], ['model', (c) => c.model], ['calls', (c) => c.calls],
      ['failed', (c) => c.failed], ['tokens', (c) => c.tokens], ['$', (c) => fmt(c.usd, 4)], ['seconds', (c) => fmt(c.seconds, 1)]], rows);
    if (!rows.length) s.appendChild(el('p', { class: 'muted' }, 'No model calls: the runs used the built-in tuner.'));
  }

  function drawFinal(runs) {
    const s = section('Final table');
    table(s, [['run', (r) => r.label], ['task', (r) => r.task + ' / ' + r.workload], ['state', (r) => r.state],
      ['baseline % of peak', (r) => fmt(r.baseline_percent, 1) + (r.baseline_note ? ' (' + r.baseline_note + ')' : '')],
      ['best % of peak', (r) => r.best ? fmt(r.best.percent, 1) + (r.best.note ? ' (' + r.best.note + ')' : '') : '-'],
      ['speedup', (r) => r.best ? fmt(r.best.speedup, 2) + 'x [' + fmt(r.best.speedup_low, 2) + ', ' + fmt(r.best.speedup_high, 2) + ']' : '-'],
      ['confirmation', (r) => r.outcome],
      ['evaluations', (r) => r.evaluations], ['$', (r) => fmt(r.usd, 4)]], runs);
    runs.forEach((r) => { s.appendChild(el('h3', {}, r.label + ': the final beam'));
      table(s, [['rank', (k) => k.rank], ['candidate', (k) => '#' + k.id], ['author', (k) => k.author],
        ['iteration', (k) => k.iteration], ['verdict', (k) => k.figures + (k.moved ? '  \u26A0 ' + k.moved : '')],
        ['plan', (k) => k.plan]], r.final);
      if (r.final.some((k) => k.figures.includes('[busy]'))) s.appendChild(el('p', { class: 'muted' }, '[busy]: measured while the machine was busy')); });
  }

  function drawBench(files) {
    const s = section('% of peak per task');
    const rows = []; files.forEach((f) => f.rows.forEach((r) => rows.push(r)));
    const tasks = [...new Set(rows.map((r) => r.task))];
    const kernels = [...new Set(rows.map((r) => r.series))];
    chart(s, { tooltip: { trigger: 'axis' }, legend: { bottom: 0, left: 8, right: 8 }, grid: { left: 56, right: 16, top: 28, bottom: 70 },
      xAxis: { type: 'category', data: tasks, axisLabel: { rotate: 30 } }, yAxis: { type: 'value', name: '% of peak' },
      series: kernels.map((k) => ({ name: k, type: 'bar', data: tasks.map((t) => {
        const r = rows.find((x) => x.task === t && x.series === k); return r ? r.percent : null; }) })) },
      'chart tall');
    table(s, [['task', (r) => r.task], ['kernel', (r) => r.series], ['file', (r) => r.file], ['status', (r) => r.status],
      ['latency ms', (r) => significant(r.latency_ms, 4)], ['% of peak', (r) => fmt(r.percent, 1)],
      ['bound', (r) => r.bound || '-']], rows);
  }

  try {
    if (data.kind === 'bench') {
      drawBench(data.files);
    } else {
      drawFinal(data.runs); drawProgress(data.runs); data.runs.forEach(drawCandidates); data.runs.forEach(drawLineage); drawMemory(data.runs); drawCost(data.runs);
    }
  } catch (e) { errors.push('drawing: ' + e); }
  // A chart fitted before its grid's last one was added may have had another width.
  const refit = () => { charts.forEach((c) => c.resize()); fitters.forEach((fit) => fit()); };
  refit();
  window.addEventListener('resize', refit);
  const check = document.getElementById('render-check');
  check.setAttribute('data-charts', String(charts.length));
  check.setAttribute('data-canvases', String(document.querySelectorAll('canvas').length));
  try { Object.entries(checkLayout()).forEach(([k, v]) => check.setAttribute('data-' + k, String(v))); } catch (e) { errors.push('layout check: ' + e); }
  check.setAttribute('data-errors', errors.join(' | '));
  check.setAttribute('data-done', 'yes');
})();
)js";

std::string page(const std::string& title, const std::string& subtitle, const Json& data) {
  return html_page(title, subtitle, data, kScript);
}

}  // namespace

std::string html_page(const std::string& title, const std::string& subtitle, const Json& data,
                      std::string_view script) {
  std::string html = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>" + html_escape(title) + "</title>\n<style>" + kStyle;
  html += ".tall { height: 420px; }\n</style>\n<script>\n";
  html += echarts_js();
  html += "\n</script>\n</head>\n<body>\n<header><h1>" + html_escape(title) + "</h1><p>" +
          html_escape(subtitle) + "</p></header>\n<main></main>\n";
  html += "<div id=\"render-check\" hidden></div>\n";
  html += "<script type=\"application/json\" id=\"report-data\">" + script_safe(data.dump()) +
          "</script>\n<script>" + std::string(script) + "</script>\n</body>\n</html>\n";
  return html;
}

Json runs_report_data(const std::vector<RunView>& runs) {
  Json all = Json::array();
  for (const RunView& view : runs) {
    Json progress = progress_points(view);
    Json best = nullptr;
    if (auto found = view.best()) {
      best = Json{{"id", found->candidate},
                  {"percent", found->figures.percent_of_peak},
                  {"speedup", found->figures.speedup},
                  {"speedup_low", found->figures.speedup_low},
                  {"speedup_high", found->figures.speedup_high},
                  {"note", figures_note(found->figures)},
                  {"confirmed", found->confirmed}};
    }
    Json memory_used = Json::array(), memory_written = Json::array();
    for (const auto& entry : view.memory_used) memory_used.push_back(entry_json(entry));
    for (const auto& entry : view.memory_written) memory_written.push_back(entry_json(entry));
    all.push_back(
        Json{{"id", view.run.id},
             {"label", view.label()},
             {"task", view.task()},
             {"workload", or_unknown(view.settings.workload)},
             {"state", view.run.state},
             {"baseline_percent", view.scale.baseline_percent()},
             {"baseline_note", figures_note(view.scale.baseline())},
             {"best", best},
             {"outcome", view.confirmation ? view.confirmation->outcome()
                                           : std::string("not confirmed (the run has not ended)")},
             {"evaluations", view.evaluations()},
             {"model_calls", view.calls.size()},
             {"usd", llm::total(view.calls).cost_usd},
             {"progress", progress},
             {"nodes", lineage_nodes(view)},
             {"roofline", roofline_ceilings(view)},
             {"memory_used", memory_used},
             {"memory_written", memory_written},
             {"cost", cost_rows(view)},
             {"final", final_table(view)}});
  }
  return Json{{"kind", "runs"}, {"runs", all}};
}

std::string runs_html(const std::vector<RunView>& runs) {
  std::string names;
  for (const RunView& view : runs) names += (names.empty() ? "" : ", ") + view.label();
  return page("accelopt report", names, runs_report_data(runs));
}

std::string bench_html(const std::vector<std::pair<std::string, Json>>& results) {
  Json files = Json::array();
  std::string names;
  for (const auto& [name, result] : results) {
    names += (names.empty() ? "" : ", ") + name;
    Json rows = Json::array();
    if (!result.is_array()) continue;
    for (const Json& row : result) {
      kernel::Verdict verdict = kernel::Verdict::from_json(row.value("verdict", Json::object()));
      std::string kernel = row.value("kernel", "?");
      std::string series = row.value("library", false) ? "library: " + kernel
                           : kernel == "baseline"      ? "baseline"
                                                       : "kernel " + kernel;
      rows.push_back(Json{
          {"task", row.value("task", "?")},
          {"series", series},
          {"file", name},
          {"status", kernel::status_name(verdict.status)},
          {"latency_ms", verdict.timing ? Json(verdict.timing->latency_seconds * 1e3) : Json()},
          {"percent",
           verdict.passed() && verdict.roofline ? Json(verdict.roofline->percent_of_peak) : Json()},
          {"bound", verdict.roofline ? verdict.roofline->bound : ""}});
    }
    files.push_back(Json{{"name", name}, {"rows", rows}});
  }
  return page("accelopt bench report", names, Json{{"kind", "bench"}, {"files", files}});
}

}  // namespace accelopt::report
