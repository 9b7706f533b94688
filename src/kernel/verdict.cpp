#include "kernel/verdict.h"

#include <cmath>
#include <cstdio>

#include "common/error.h"

namespace accelopt::kernel {
namespace {

constexpr std::pair<Status, std::string_view> kStatusNames[] = {
    {Status::kPassed, "PASSED"},
    {Status::kRejectedSource, "REJECTED_SOURCE"},
    {Status::kCompileError, "COMPILE_ERROR"},
    {Status::kRuntimeError, "RUNTIME_ERROR"},
    {Status::kTimeout, "TIMEOUT"},
    {Status::kIncorrectShape, "INCORRECT_SHAPE"},
    {Status::kIncorrectNumerical, "INCORRECT_NUMERICAL"},
    {Status::kRejectedPhysics, "REJECTED_PHYSICS"},
    {Status::kEvaluationFailed, "EVALUATION_FAILED"},
    {Status::kMachineBusy, "MACHINE_BUSY"},
};

}  // namespace

std::string over_ceiling_note(double percent_of_peak) {
  if (!(percent_of_peak > 100)) return {};
  return " (" + std::string(kOverCeiling) + ")";
}

namespace {

struct LatencyUnit {
  double scale;
  const char* name;
};

LatencyUnit unit_for(double seconds) {
  if (seconds >= 1) return {1, "s"};
  if (seconds >= 1e-3) return {1e3, "ms"};
  if (seconds >= 1e-6) return {1e6, "µs"};
  return {1e9, "ns"};
}

std::string three_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%#.3g", value);
  std::string result = text;
  if (!result.empty() && result.back() == '.') result.pop_back();  // "100." from %#g
  return result;
}

}  // namespace

std::string latency_text(double seconds) {
  LatencyUnit unit = unit_for(seconds);
  return three_digits(seconds * unit.scale) + " " + unit.name;
}

std::string latency_interval_text(double seconds, double low, double high) {
  LatencyUnit unit = unit_for(seconds);
  return three_digits(seconds * unit.scale) + " " + unit.name + " (95% interval " +
         three_digits(low * unit.scale) + "–" + three_digits(high * unit.scale) + " " + unit.name +
         ")";
}

std::string waited_for_core_text(const MachineLoad& load) {
  if (!load.waited_for_core) return {};
  return ", waited for a core " + std::to_string(std::lround(100 * *load.waited_for_core)) +
         " % of the time";
}

std::string_view status_name(Status status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return "UNKNOWN";
}

std::optional<Status> parse_status(std::string_view name) {
  for (const auto& [value, known] : kStatusNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

Json Verdict::to_json() const {
  Json json;
  json["status"] = status_name(status);
  json["message"] = message;
  json["task"] = task;
  json["workload"] = workload;
  json["source_hash"] = source_hash;
  json["correctness"] = {
      {"seeds_checked", correctness.seeds_checked}, {"rel_l2_error", correctness.rel_l2_error},
      {"max_abs_error", correctness.max_abs_error}, {"max_rel_error", correctness.max_rel_error},
      {"tolerance", correctness.tolerance},         {"kernel_seconds", correctness.kernel_seconds}};
  if (timing) {
    json["timing"] = {{"anchor", timing->anchor},
                      {"speedup", timing->speedup},
                      {"speedup_ci", {timing->speedup_low, timing->speedup_high}},
                      {"latency_seconds", timing->latency_seconds},
                      {"latency_ci", {timing->latency_low, timing->latency_high}},
                      {"anchor_latency_seconds", timing->anchor_latency_seconds},
                      {"candidate_median_seconds", timing->candidate_median_seconds},
                      {"pairs", timing->pairs},
                      {"candidate_calls_per_turn", timing->candidate_calls_per_turn},
                      {"anchor_calls_per_turn", timing->anchor_calls_per_turn},
                      {"converged", timing->converged},
                      {"kernel_seconds", timing->kernel_seconds},
                      {"ratios", timing->ratios},
                      {"wall_clock_pairs", timing->wall_clock_pairs},
                      {"candidate_off_cpu", timing->candidate_off_cpu},
                      {"anchor_off_cpu", timing->anchor_off_cpu}};
    if (const auto& load = timing->load) {
      json["timing"]["load"] = {{"other_cores_busy", load->other_cores_busy},
                                {"steal", load->steal},
                                {"involuntary_switches", load->involuntary_switches},
                                {"waited_seconds", load->waited_seconds},
                                {"busy", load->busy}};
      if (load->waited_for_core) {
        json["timing"]["load"]["waited_for_core"] = *load->waited_for_core;
      }
    }
  }
  if (roofline) {
    json["roofline"] = {{"mm_flops", roofline->mm_flops},
                        {"vec_flops", roofline->vec_flops},
                        {"bytes", roofline->bytes},
                        {"peak_seconds", roofline->peak_seconds},
                        {"percent_of_peak", roofline->percent_of_peak},
                        {"bound", roofline->bound},
                        {"gflops", roofline->gflops},
                        {"gbytes_per_second", roofline->gbytes_per_second},
                        {"percent_fma", roofline->percent_fma},
                        {"percent_vector", roofline->percent_vector},
                        {"percent_memory", roofline->percent_memory}};
    if (roofline->ceiling_alongside > 0) {
      json["roofline"]["ceiling_alongside"] = roofline->ceiling_alongside;
      json["roofline"]["ceiling_probe"] = roofline->ceiling_probe;
      json["roofline"]["ceiling_samples"] = roofline->ceiling_samples;
    }
  }
  json["profile"] = profile;
  json["sandbox"] = sandbox;
  json["compile_seconds"] = compile_seconds;
  json["compile_cached"] = compile_cached;
  json["wall_seconds"] = wall_seconds;
  json["log"] = log;
  if (remote) {
    json["remote"] = {{"worker", remote->worker},
                      {"job", remote->job},
                      {"attempt", remote->attempt},
                      {"earlier", remote->earlier}};
  }
  return json;
}

Verdict Verdict::from_json(const Json& json) {
  Verdict verdict;
  auto status = parse_status(json.value("status", ""));
  if (!status) throw UserError("verdict record has an unknown status: " + json.value("status", ""));
  verdict.status = *status;
  verdict.message = json.value("message", "");
  verdict.task = json.value("task", "");
  verdict.workload = json.value("workload", "");
  verdict.source_hash = json.value("source_hash", "");
  if (json.contains("correctness")) {
    const Json& c = json["correctness"];
    verdict.correctness = {c.value("seeds_checked", 0),   c.value("rel_l2_error", 0.0),
                           c.value("max_abs_error", 0.0), c.value("max_rel_error", 0.0),
                           c.value("tolerance", 0.0),     c.value("kernel_seconds", 0.0)};
  }
  if (json.contains("timing")) {
    const Json& t = json["timing"];
    Timing timing;
    timing.anchor = t.value("anchor", "");
    timing.speedup = t.value("speedup", 0.0);
    timing.speedup_low = t["speedup_ci"][0].get<double>();
    timing.speedup_high = t["speedup_ci"][1].get<double>();
    timing.latency_seconds = t.value("latency_seconds", 0.0);
    timing.latency_low = t["latency_ci"][0].get<double>();
    timing.latency_high = t["latency_ci"][1].get<double>();
    timing.anchor_latency_seconds = t.value("anchor_latency_seconds", 0.0);
    timing.candidate_median_seconds = t.value("candidate_median_seconds", 0.0);
    timing.pairs = t.value("pairs", 0);
    timing.candidate_calls_per_turn = t.value("candidate_calls_per_turn", 0);
    timing.anchor_calls_per_turn = t.value("anchor_calls_per_turn", 0);
    timing.converged = t.value("converged", false);
    timing.kernel_seconds = t.value("kernel_seconds", 0.0);
    timing.ratios = t.value("ratios", std::vector<double>{});
    timing.wall_clock_pairs = t.value("wall_clock_pairs", 0);
    timing.candidate_off_cpu = t.value("candidate_off_cpu", 0.0);
    timing.anchor_off_cpu = t.value("anchor_off_cpu", 0.0);
    if (t.contains("load")) {
      const Json& l = t["load"];
      MachineLoad load;
      load.other_cores_busy = l.value("other_cores_busy", 0.0);
      load.steal = l.value("steal", 0.0);
      load.involuntary_switches = l.value("involuntary_switches", int64_t{0});
      load.waited_seconds = l.value("waited_seconds", 0.0);
      if (l.contains("waited_for_core")) load.waited_for_core = l["waited_for_core"].get<double>();
      load.busy = l.value("busy", false);
      timing.load = load;
    }
    verdict.timing = timing;
  }
  if (json.contains("roofline")) {
    const Json& r = json["roofline"];
    RooflineScore score;
    score.mm_flops = r.value("mm_flops", 0.0);
    score.vec_flops = r.value("vec_flops", 0.0);
    score.bytes = r.value("bytes", 0.0);
    score.peak_seconds = r.value("peak_seconds", 0.0);
    score.percent_of_peak = r.value("percent_of_peak", 0.0);
    score.bound = r.value("bound", "");
    score.gflops = r.value("gflops", 0.0);
    score.gbytes_per_second = r.value("gbytes_per_second", 0.0);
    score.percent_fma = r.value("percent_fma", 0.0);
    score.percent_vector = r.value("percent_vector", 0.0);
    score.percent_memory = r.value("percent_memory", 0.0);
    score.ceiling_alongside = r.value("ceiling_alongside", 0.0);
    score.ceiling_probe = r.value("ceiling_probe", 0.0);
    score.ceiling_samples = r.value("ceiling_samples", 0);
    verdict.roofline = score;
  }
  verdict.profile = json.value("profile", Json::object());
  verdict.sandbox = json.value("sandbox", Json::object());
  verdict.compile_seconds = json.value("compile_seconds", 0.0);
  verdict.compile_cached = json.value("compile_cached", false);
  verdict.wall_seconds = json.value("wall_seconds", 0.0);
  verdict.log = json.value("log", "");
  if (const auto found = json.find("remote"); found != json.end() && found->is_object()) {
    verdict.remote = RemoteEvaluation{found->value("worker", ""), found->value("job", int64_t{0}),
                                      found->value("attempt", 1), found->value("earlier", "")};
  }
  return verdict;
}

}  // namespace accelopt::kernel
