#include "agents/prompt_variables.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "common/files.h"
#include "kernel/knobs.h"
#include "kernel/source_text.h"
#include "platform/case_variation.h"
#include "task/abi.h"
#include "task/dtype.h"

namespace accelopt::agents {
namespace {

std::string format(double value, int precision = 3) {
  std::ostringstream out;
  out.precision(precision);
  out << value;
  return out.str();
}

// Marks the last element of each list so that templates can write separators: {{^last}}, {{/last}}.
void mark_last(Json& list) {
  for (size_t i = 0; i < list.size(); ++i) list[i]["last"] = i + 1 == list.size();
}

Json tensor_variables(const task::Task& task, const std::vector<task::TensorSpec>& tensors,
                      const task::Workload& workload) {
  Json list = Json::array();
  for (const task::TensorSpec& tensor : tensors) {
    std::string names, sizes;
    for (const std::string& axis : tensor.shape) {
      names += (names.empty() ? "" : ", ") + axis;
      auto it = workload.axes.find(axis);
      sizes += (sizes.empty() ? "" : ", ") +
               (it == workload.axes.end() ? axis : std::to_string(it->second));
    }
    list.push_back(
        {{"name", tensor.name},
         {"dtype", std::string(task::dtype_name(tensor.dtype))},
         {"shape", tensor.shape.empty() ? " scalar" : "[" + names + "] = [" + sizes + "]"},
         {"elements", task.element_count(tensor, workload)},
         {"description", tensor.description},
         {"distribution", task::distribution_text(tensor.distribution)},
         {"tolerance", task::tolerance_text(task.tolerance(tensor.name))}});
  }
  mark_last(list);
  return list;
}

// Every case a correctness check draws, family by family, with the ranges of its secret variations
// (platform/case_variation.h: the table the draws use).
Json case_variables(const task::Task& task) {
  Json list = Json::array();
  for (const platform::CaseFamily& family : platform::describe_correctness_cases(task)) {
    list.push_back(
        {{"set", family.set}, {"cases", family.cases}, {"description", family.description}});
  }
  mark_last(list);
  return list;
}

// The edge-case input sets as the checker draws them: what each tests, the inputs it draws
// otherwise, how many cases, and the tolerances it changes.
Json input_set_variables(const task::Task& task) {
  Json list = Json::array();
  for (const task::InputSet& set : task.input_sets) {
    Json inputs = Json::array();
    for (const auto& [name, distribution] : set.inputs) {
      inputs.push_back({{"name", name}, {"distribution", task::distribution_text(distribution)}});
    }
    mark_last(inputs);
    Json tolerances = Json::array();
    for (const task::TensorSpec& output : task.outputs) {
      task::Tolerance own = task.tolerance(output.name);
      task::Tolerance here = task.tolerance(output.name, &set);
      if (here == own) continue;
      tolerances.push_back({{"name", output.name}, {"tolerance", task::tolerance_text(here)}});
    }
    mark_last(tolerances);
    list.push_back({{"name", set.name},
                    {"description", set.description},
                    {"seeds", set.seeds},
                    {"inputs", inputs},
                    {"tolerances", tolerances},
                    {"has_tolerances", !tolerances.empty()}});
  }
  mark_last(list);
  return list;
}

Json knob_variables(const std::string& source) {
  Json list = Json::array();
  for (const kernel::Knob& knob : kernel::parse_knobs(source)) {
    list.push_back({{"name", knob.name},
                    {"value", std::to_string(knob.value)},
                    {"values", fmt::format("{}", fmt::join(knob.allowed, " "))}});
  }
  mark_last(list);
  return list;
}

std::string source_line(const std::string& source, int number) {
  std::istringstream stream(source);
  std::string line;
  for (int i = 1; std::getline(stream, line); ++i) {
    if (i == number) {
      line.erase(0, line.find_first_not_of(" \t"));
      return line.size() > 100 ? line.substr(0, 97) + "..." : line;
    }
  }
  return {};
}

}  // namespace

std::string trim_middle(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  size_t head = max_chars * 2 / 3, tail = max_chars - head;
  // Cut at line ends where one is near, so that no line is shown in halves.
  size_t head_end = text.rfind('\n', head);
  if (head_end == std::string::npos || head_end < head / 2) head_end = head;
  size_t tail_start = text.find('\n', text.size() - tail);
  if (tail_start == std::string::npos || tail_start > text.size() - tail / 2) {
    tail_start = text.size() - tail;
  }
  std::string cut = text.substr(head_end, tail_start - head_end);
  size_t lines = static_cast<size_t>(std::count(cut.begin(), cut.end(), '\n'));
  return text.substr(0, head_end) + "\n[... " + std::to_string(cut.size()) + " characters (" +
         std::to_string(lines) + " lines) cut ...]" + text.substr(tail_start);
}

Json task_variables(const task::Task& task, const std::string& workload_name) {
  const task::Workload& workload = task.workload_or_default(workload_name);
  Json axes = Json::array();
  for (const task::Axis& axis : task.axes) {
    auto it = workload.axes.find(axis.name);
    axes.push_back({{"name", axis.name},
                    {"value", it == workload.axes.end() ? axis.value : it->second},
                    {"is_const", axis.is_const},
                    {"description", axis.description}});
  }
  mark_last(axes);
  std::string tags;
  for (const std::string& tag : task.tags) tags += (tags.empty() ? "" : ", ") + tag;
  task::RooflineCounts counts = task.roofline_counts(workload);
  std::string reference;
  try {
    reference = read_file(task.reference_path());
  } catch (const std::exception& error) {
    reference = "// (the reference could not be read: " + std::string(error.what()) + ")";
  }
  return {{"name", task.name},
          {"op_type", task.op_type},
          {"tags", tags},
          {"description", task.description},
          {"workload", workload.name},
          {"axes", axes},
          {"inputs", tensor_variables(task, task.inputs, workload)},
          {"outputs", tensor_variables(task, task.outputs, workload)},
          {"threads", task.threads},
          {"single_threaded", task.threads <= 1},
          {"entry_point", task.entry_point},
          {"rel_l2_tolerance", format(task.rel_l2_tolerance, 2)},
          {"seeds", task.seeds},
          {"input_sets", input_set_variables(task)},
          {"cases", case_variables(task)},
          {"has_input_sets", !task.input_sets.empty()},
          {"roofline",
           {{"mm_flops", format(counts.mm_flops, 4)},
            {"vec_flops", format(counts.vec_flops, 4)},
            {"bytes", format(counts.bytes, 4)},
            {"mm_flops_formula", task.mm_flops_expression},
            {"vec_flops_formula", task.vec_flops_expression},
            {"bytes_formula", task.bytes_expression}}},
          {"header", task::generate_kernel_header(task, workload)},
          {"reference", reference}};
}

std::string profile_summary(const kernel::Verdict& verdict, const std::string& source,
                            const roles::KernelFigures* figures) {
  std::ostringstream out;
  out << "- Status: " << kernel::status_name(verdict.status) << "\n";
  // The run's figure where there is one (figures.h); the verdict's own moment otherwise.
  double own_latency = verdict.timing ? verdict.timing->latency_seconds : 0;
  double rescale = 1;  // the verdict's own-latency figures brought to the run's latency
  if (figures != nullptr && figures->baseline) {
    out << "- This is the run's baseline: 1x by definition, the kernel every speedup here is "
           "relative to; latency "
        << kernel::latency_text(figures->latency_seconds)
        << (figures->origin.empty() ? "" : " (" + figures->origin + ")") << "\n";
    if (own_latency > 0 && figures->latency_seconds > 0) {
      rescale = own_latency / figures->latency_seconds;
    }
  } else if (figures != nullptr) {
    out << "- Speed: " << format(figures->speedup, 3) << "x the baseline's (95% interval "
        << format(figures->speedup_low, 3) << "–" << format(figures->speedup_high, 3) << "; "
        << figures->origin << "); latency "
        << kernel::latency_interval_text(figures->latency_seconds, figures->latency_low,
                                         figures->latency_high)
        << ", derived from that speedup and the baseline's careful latency\n";
    if (figures->busy) {
      out << "- That figure was measured while the machine was busy (other work shared its cores "
             "or memory): it may move on a quiet machine\n";
    }
    if (!figures->disagreeing.empty()) {
      out << "- Other measurements of this kernel against the baseline disagree with that figure "
             "beyond both intervals: the machine's load changed between them (each is honest "
             "about its own minutes; the figure above is the most precise):\n";
      for (const roles::NamedSpeedup& other : figures->disagreeing) {
        out << "  - " << other.name << ": " << format(other.speedup, 3) << "x (95% interval "
            << format(other.speedup_low, 3) << "–" << format(other.speedup_high, 3) << ")"
            << (other.busy ? ", measured while the machine was busy" : "") << "\n";
      }
    }
    if (own_latency > 0 && figures->latency_seconds > 0) {
      rescale = own_latency / figures->latency_seconds;
    }
  } else if (verdict.timing) {
    const kernel::Timing& timing = *verdict.timing;
    out << "- Latency: "
        << kernel::latency_interval_text(timing.latency_seconds, timing.latency_low,
                                         timing.latency_high)
        << "; " << format(timing.speedup, 3) << "x the speed of the " << timing.anchor << "\n";
  }
  if (verdict.roofline) {
    const kernel::RooflineScore& score = *verdict.roofline;
    double percent = figures != nullptr ? figures->percent_of_peak : score.percent_of_peak;
    out << "- " << format(percent, 3) << "% of this machine's peak for the task";
    if (figures != nullptr && !figures->baseline) {
      out << " (95% interval " << format(figures->percent_low, 3) << "–"
          << format(figures->percent_high, 3) << ")";
    }
    out << kernel::over_ceiling_note(percent);
    if (figures != nullptr && figures->baseline && figures->busy) {
      out << " (measured while the machine was busy)";
    }
    out << " (" << score.bound << " bound); " << format(score.gflops * rescale, 4) << " GFLOP/s, "
        << format(score.gbytes_per_second * rescale, 4) << " GB/s; of each ceiling: FMA "
        << format(score.percent_fma * rescale, 3) << "%, vector "
        << format(score.percent_vector * rescale, 3) << "%, memory "
        << format(score.percent_memory * rescale, 3) << "%\n";
    out << "  (a ceiling's share: the task's counted work for it at this latency, as the "
           "machine section defines % of peak)\n";
  }
  const Json& loops =
      verdict.profile.contains("vectorization") ? verdict.profile["vectorization"] : Json();
  if (loops.is_array()) {
    int vectorized = 0;
    std::vector<std::string> scalar, intrinsic;
    for (const Json& loop : loops) {
      if (loop.value("vectorized", false)) {
        ++vectorized;
        continue;
      }
      int line = loop.value("line", 0);
      std::string text = source_line(source, line);
      std::string where = "line " + std::to_string(line) + (text.empty() ? "" : " `" + text + "`");
      if (kernel::loop_uses_intrinsics(source, line)) {
        intrinsic.push_back(where);
        continue;
      }
      scalar.push_back(where + ": " + loop.value("detail", std::string("not vectorized")));
    }
    out << "- Loops: " << vectorized << " vectorized by the compiler, ";
    if (!intrinsic.empty()) {
      out << intrinsic.size() << " hand-vectorized with intrinsics (";
      for (size_t i = 0; i < intrinsic.size() && i < 6; ++i) {
        out << (i == 0 ? "" : "; ") << intrinsic[i];
      }
      if (intrinsic.size() > 6) out << "; " << intrinsic.size() - 6 << " more";
      out << "; the compiler's remark that it did not vectorize them concerns its own "
             "auto-vectorization, not the code's width), ";
    }
    out << scalar.size() << " not vectorized";
    out << (scalar.empty() ? "\n" : ":\n");
    for (size_t i = 0; i < scalar.size() && i < 12; ++i) out << "  - " << scalar[i] << "\n";
    if (scalar.size() > 12) out << "  - (" << scalar.size() - 12 << " more)\n";
  }
  const Json& mix =
      verdict.profile.contains("instruction_mix") ? verdict.profile["instruction_mix"] : Json();
  if (mix.is_object() && mix.contains("fp_scalar")) {
    out << "- Floating-point arithmetic instructions in the kernel's compiled code (static counts: "
           "instructions present in the code, not how often they run): "
        << mix.value("fp_512", 0) << " 512-bit, " << mix.value("fp_256", 0) << " 256-bit, "
        << mix.value("fp_128", 0) << " 128-bit, " << mix.value("fp_scalar", 0)
        << " scalar (scalar share " << format(100 * mix.value("share_scalar", 0.0), 3)
        << "%; one-lane instructions: scalar code, loop remainders and the last steps of a "
           "horizontal sum all count here)\n";
  }
  if (!verdict.passed() && !verdict.message.empty()) out << "- " << verdict.message << "\n";
  std::string text = out.str();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string noise_note(double timing_target) {
  if (timing_target <= 0) return {};
  return fmt::format(
      "At this run's timing budget a candidate's speedup is known to about ±{}% (its timing stops "
      "once the 95% interval is that narrow, or when its budget is spent, and then the interval "
      "shown is wider); differences smaller than the intervals are noise.",
      format(timing_target * 100, 2));
}

Json kernel_variables(const roles::KernelView& kernel) {
  Json knobs = knob_variables(kernel.source);
  Json out = {{"source", kernel.source},
              {"knobs", knobs},
              {"has_knobs", !knobs.empty()},
              {"has_verdict", kernel.verdict.has_value()},
              {"has_profile", kernel.verdict.has_value()},
              {"noise_note", noise_note(kernel.timing_target)}};
  Json tried = Json::array();
  for (const std::string& plan : kernel.tried_plans)
    tried.push_back({{"text", trim_middle(plan, 600)}});
  out["has_tried_plans"] = !tried.empty();
  out["tried_plans"] = std::move(tried);
  Json proposed = Json::array();
  for (const std::string& plan : kernel.plans_this_iteration) {
    proposed.push_back({{"text", trim_middle(plan, 600)}});
  }
  out["has_plans_this_iteration"] = !proposed.empty();
  out["plans_this_iteration"] = std::move(proposed);
  Json timings = Json::array();
  for (const roles::KnobTiming& timing : kernel.knob_timings) {
    bool timed = timing.speedup > 0;
    timings.push_back({{"setting", timing.setting},
                       {"status", timing.status},
                       {"timed", timed},
                       {"current", timing.current},
                       {"speedup", timed ? format(timing.speedup) : std::string()},
                       {"speedup_low", timed ? format(timing.speedup_low) : std::string()},
                       {"speedup_high", timed ? format(timing.speedup_high) : std::string()}});
  }
  mark_last(timings);
  out["has_knob_timings"] = !timings.empty();
  out["knob_timings"] = std::move(timings);
  out["has_figures"] = kernel.figures.has_value();
  if (kernel.figures) {
    const roles::KernelFigures& figures = *kernel.figures;
    Json disagreeing = Json::array();
    for (const roles::NamedSpeedup& other : figures.disagreeing) {
      disagreeing.push_back({{"name", other.name},
                             {"busy", other.busy},
                             {"speedup", format(other.speedup)},
                             {"speedup_low", format(other.speedup_low)},
                             {"speedup_high", format(other.speedup_high)}});
    }
    mark_last(disagreeing);
    out["figures"] = {{"baseline", figures.baseline},
                      {"speedup", format(figures.speedup)},
                      {"speedup_low", format(figures.speedup_low)},
                      {"speedup_high", format(figures.speedup_high)},
                      {"latency_ms", format(figures.latency_seconds * 1e3, 4)},
                      {"percent_of_peak", format(figures.percent_of_peak)},
                      {"origin", figures.origin},
                      {"busy", figures.busy},
                      {"over_ceiling", figures.percent_of_peak > 100},
                      {"has_disagreeing", !disagreeing.empty()},
                      {"disagreeing", disagreeing}};
  }
  if (!kernel.verdict) return out;
  const kernel::Verdict& verdict = *kernel.verdict;
  const roles::KernelFigures* figures = kernel.figures ? &*kernel.figures : nullptr;
  out["status"] = std::string(kernel::status_name(verdict.status));
  out["passed"] = verdict.passed();
  out["message"] = verdict.message;
  out["profile_summary"] = profile_summary(verdict, kernel.source, figures);
  if (figures != nullptr) {
    out["latency_ms"] = format(figures->latency_seconds * 1e3, 4);
    out["speedup"] = format(figures->speedup);
    out["anchor"] = "baseline";
  } else if (verdict.timing) {
    out["latency_ms"] = format(verdict.timing->latency_seconds * 1e3, 4);
    out["speedup"] = format(verdict.timing->speedup);
    out["anchor"] = verdict.timing->anchor;
  }
  if (verdict.roofline) {
    out["percent_of_peak"] =
        format(figures != nullptr ? figures->percent_of_peak : verdict.roofline->percent_of_peak);
    out["bound"] = verdict.roofline->bound;
  }
  return out;
}

Json memory_variables(const std::vector<roles::Insight>& insights) {
  Json entries = Json::array();
  Json positive = Json::array(), negative = Json::array();
  for (const roles::Insight& insight : insights) {
    // Where it was learned: "task silu, workload default, run 3: #7 → #12 in iteration 1".
    std::string origin;
    if (!insight.task.empty()) {
      origin = "task " + insight.task;
      if (!insight.workload.empty()) origin += ", workload " + insight.workload;
      if (insight.run > 0) origin += fmt::format(", run {}", insight.run);
      if (insight.slow_candidate > 0 && insight.fast_candidate > 0) {
        origin += fmt::format(": #{} → #{}", insight.slow_candidate, insight.fast_candidate);
      }
      if (insight.iteration > 0) origin += fmt::format(" in iteration {}", insight.iteration);
    }
    Json entry = {
        {"title", insight.title},
        {"description", insight.description},
        {"before", insight.before_snippet},
        {"after", insight.after_snippet},
        {"speedup", format(insight.speedup)},
        {"speedup_low", format(insight.speedup_low)},
        {"speedup_high", format(insight.speedup_high)},
        {"positive", insight.positive},
        // The heading follows the lesson's own direction where its author said it.
        {"faster", insight.effect.empty() ? insight.positive : insight.effect == "faster"},
        {"origin", origin}};
    entries.push_back(entry);
    (insight.positive ? positive : negative).push_back(entry);
  }
  mark_last(entries);
  mark_last(positive);
  mark_last(negative);
  return {{"has_entries", !entries.empty()},
          {"entries", entries},
          {"positive", positive},
          {"negative", negative}};
}

roles::KernelView without_measurements(roles::KernelView kernel) {
  if (kernel.figures) {
    roles::KernelFigures blank;
    blank.baseline = kernel.figures->baseline;
    blank.origin = kernel.figures->origin;
    kernel.figures = blank;  // whether other measurements disagree is measured too
  }
  for (roles::KnobTiming& timing : kernel.knob_timings) {
    timing.speedup = timing.speedup_low = timing.speedup_high = 0;
  }
  if (!kernel.verdict) return kernel;
  kernel::Verdict& verdict = *kernel.verdict;
  if (verdict.timing) {
    kernel::Timing blank;
    blank.anchor = verdict.timing->anchor;
    verdict.timing = blank;
    verdict.message.clear();  // "1.234x the baseline …", "measured 0.1 ms, but …"
  }
  if (verdict.roofline) {
    kernel::RooflineScore blank;
    blank.bound = verdict.roofline->bound;
    verdict.roofline = blank;
  }
  return kernel;
}

std::vector<roles::Insight> without_measurements(std::vector<roles::Insight> insights) {
  for (roles::Insight& insight : insights) {
    insight.speedup = insight.speedup_low = insight.speedup_high = 0;
    // Ids the store hands out in the order evaluations finish: not the same from run to run.
    insight.run = insight.slow_candidate = insight.fast_candidate = 0;
  }
  return insights;
}

std::string quote_kernel_output(const std::string& log, size_t max_kernel_chars) {
  constexpr std::string_view kMark = "kernel| ";
  std::string quoted, printed;
  size_t kernel_chars = 0, left_out = 0;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with(kMark)) {
      quoted += line + "\n";
      continue;
    }
    // No backtick: the log sits in a fenced block of the prompt, which the kernel's text must not
    // be able to close.
    std::string text = line.substr(kMark.size());
    std::replace(text.begin(), text.end(), '`', '\'');
    if (kernel_chars + text.size() > max_kernel_chars) {
      left_out += text.size() + 1;
      continue;
    }
    kernel_chars += text.size() + 1;
    quoted += std::string(kMark) + text + "\n";
  }
  if (left_out > 0) {
    quoted += fmt::format("[{} more characters the kernel printed are not shown]\n", left_out);
  }
  if (!log.empty() && log.back() != '\n' && !quoted.empty()) quoted.pop_back();
  return quoted;
}

Json failure_variables(const kernel::Verdict& verdict, size_t max_log_chars) {
  return {{"status", std::string(kernel::status_name(verdict.status))},
          {"message", verdict.message},
          {"log", trim_middle(quote_kernel_output(verdict.log), max_log_chars)}};
}

}  // namespace accelopt::agents
