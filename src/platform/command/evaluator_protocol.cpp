#include "platform/command/evaluator_protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "common/error.h"
#include "platform/paired_timing.h"
#include "platform/statistics.h"

namespace accelopt::platform::command {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

[[noreturn]] void reply_error(const std::string& field, const std::string& why) {
  throw UserError("the evaluator's reply does not follow " + std::string(kProtocolVersion) + ": " +
                  field + ": " + why);
}

const Json& required(const Json& object, const std::string& key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) reply_error(where + key, "missing");
  return object.at(key);
}

double number(const Json& value, const std::string& field) {
  if (!value.is_number()) reply_error(field, "not a number");
  return value.get<double>();
}

std::vector<float> decode_floats(const Json& value, size_t expected, const std::string& field) {
  if (!value.is_string()) reply_error(field, "not a base64 string");
  std::vector<uint8_t> bytes = base64_decode(value.get<std::string>());
  if (bytes.size() != expected * sizeof(float)) {
    reply_error(field, fmt::format("{} bytes, expected {} ({} float32 values)", bytes.size(),
                                   expected * sizeof(float), expected));
  }
  std::vector<float> floats(expected);
  std::memcpy(floats.data(), bytes.data(), bytes.size());
  return floats;
}

std::vector<double> seconds_list(const Json& timing, const std::string& key) {
  const Json& list = required(timing, key, "timing.");
  if (!list.is_array()) reply_error("timing." + key, "not an array");
  std::vector<double> seconds;
  for (const Json& value : list) seconds.push_back(number(value, "timing." + key));
  return seconds;
}

SeedOutputs parse_seed_outputs(const Json& entry, const task::Task& task,
                               const task::Workload& workload, size_t index) {
  std::string where = fmt::format("outputs[{}].", index);
  SeedOutputs outputs;
  // Seeds are secret 64-bit draws: read back exactly, never through a double.
  const Json& seed = required(entry, "seed", where);
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0)) {
    throw UserError(
        fmt::format("the evaluator's {}seed must be the request's unsigned integer, "
                    "copied exactly, not {}",
                    where, seed.dump()));
  }
  outputs.seed = seed.get<uint64_t>();
  if (entry.contains("values")) {
    for (const task::TensorSpec& tensor : task.outputs) {
      std::string field = where + "values." + tensor.name;
      const Json& value = required(entry["values"], tensor.name, where + "values.");
      outputs.values.push_back(
          decode_floats(value, static_cast<size_t>(task.element_count(tensor, workload)), field));
    }
  } else if (entry.contains("checksums")) {
    for (const task::TensorSpec& tensor : task.outputs) {
      std::string field = where + "checksums." + tensor.name;
      const Json& value = required(entry["checksums"], tensor.name, where + "checksums.");
      outputs.checksums.push_back({number(required(value, "sum", field + "."), field + ".sum"),
                                   number(required(value, "l2", field + "."), field + ".l2")});
    }
  } else {
    reply_error(where + "values", "neither values nor checksums given");
  }
  return outputs;
}

}  // namespace

std::string_view correctness_mode_name(CorrectnessMode mode) {
  switch (mode) {
    case CorrectnessMode::kEvaluator:
      return "evaluator";
    case CorrectnessMode::kValues:
      return "values";
    case CorrectnessMode::kChecksums:
      return "checksums";
  }
  return "evaluator";
}

std::optional<CorrectnessMode> parse_correctness_mode(std::string_view name) {
  for (CorrectnessMode mode :
       {CorrectnessMode::kEvaluator, CorrectnessMode::kValues, CorrectnessMode::kChecksums}) {
    if (correctness_mode_name(mode) == name) return mode;
  }
  return std::nullopt;
}

Json request_to_json(const EvaluatorRequest& request) {
  const task::Task& task = *request.task;
  Json json;
  json["protocol"] = kProtocolVersion;
  json["task"] = {{"name", task.name},
                  {"definition", task.definition},
                  {"entry_point", task.entry_point},
                  {"rel_l2_tolerance", task.rel_l2_tolerance},
                  {"reference_source", request.reference_source}};
  json["workload"] = {{"name", request.workload->name}, {"axes", request.workload->axes}};
  json["header"] = request.header;
  json["kernel"] = {{"source", request.source}};
  json["anchor"] = {{"name", request.anchor_name}, {"source", request.anchor_source}};
  json["correctness"] = correctness_mode_name(request.correctness);
  Json cases = Json::array();
  for (const RequestCase& request_case : request.cases) {
    Json entry = {{"seed", request_case.seed}};
    if (!request_case.inputs.empty()) {
      Json inputs = Json::object();
      for (size_t i = 0; i < task.inputs.size(); ++i) {
        const std::vector<float>& values = request_case.inputs[i];
        inputs[task.inputs[i].name] = base64_encode(values.data(), values.size() * sizeof(float));
      }
      entry["inputs"] = std::move(inputs);
    }
    cases.push_back(std::move(entry));
  }
  json["cases"] = std::move(cases);
  if (request.measure_time) {
    json["timing"] = request.timing.to_json();
  } else {
    json["timing"] = nullptr;
  }
  return json;
}

EvaluatorReply parse_reply(const std::string& text, const task::Task& task,
                           const task::Workload& workload) {
  Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    reply_error("stdout", "not one JSON object (" + std::to_string(text.size()) + " bytes)");
  }
  std::string protocol = json.value("protocol", "");
  if (protocol != kProtocolVersion) {
    reply_error("protocol", "\"" + protocol + "\", expected \"" + kProtocolVersion + "\"");
  }
  EvaluatorReply reply;
  const Json& status_field = required(json, "status", "");
  auto status = status_field.is_string() ? kernel::parse_status(status_field.get<std::string>())
                                         : std::nullopt;
  if (!status) reply_error("status", "not a status name such as \"PASSED\"");
  reply.status = *status;
  reply.message = json.value("message", "");
  reply.log = json.value("log", "");
  if (json.contains("compile_seconds")) {
    reply.compile_seconds = number(json["compile_seconds"], "compile_seconds");
  }
  if (json.contains("device")) reply.device = json["device"];
  if (json.contains("sandbox")) reply.sandbox = json["sandbox"];
  if (json.contains("correctness") && !json["correctness"].is_null()) {
    const Json& c = json["correctness"];
    Correctness correctness;
    correctness.seeds_checked = static_cast<int>(
        number(required(c, "seeds_checked", "correctness."), "correctness.seeds_checked"));
    correctness.rel_l2_error = c.value("rel_l2_error", 0.0);
    correctness.max_abs_error = c.value("max_abs_error", 0.0);
    correctness.max_rel_error = c.value("max_rel_error", 0.0);
    correctness.tolerance = task.rel_l2_tolerance;
    reply.correctness = correctness;
  }
  if (json.contains("outputs") && json["outputs"].is_array()) {
    size_t index = 0;
    for (const Json& entry : json["outputs"]) {
      reply.outputs.push_back(parse_seed_outputs(entry, task, workload, index++));
    }
  }
  if (json.contains("timing") && !json["timing"].is_null()) {
    const Json& timing = json["timing"];
    ReportedTurns turns;
    turns.candidate_seconds = seconds_list(timing, "candidate_seconds");
    turns.anchor_seconds = seconds_list(timing, "anchor_seconds");
    if (turns.candidate_seconds.size() != turns.anchor_seconds.size()) {
      reply_error("timing", "candidate_seconds and anchor_seconds differ in length");
    }
    turns.candidate_calls_per_turn = timing.value("candidate_calls_per_turn", 1);
    turns.anchor_calls_per_turn = timing.value("anchor_calls_per_turn", 1);
    turns.kernel_seconds = timing.value("kernel_seconds", 0.0);
    reply.turns = std::move(turns);
  }
  return reply;
}

Timing timing_from_reported(const ReportedTurns& turns, const std::string& anchor_name,
                            double target_half_width) {
  if (turns.candidate_seconds.empty() ||
      turns.candidate_seconds.size() != turns.anchor_seconds.size()) {
    throw UserError(fmt::format(
        "the evaluator's timing needs as many anchor turns as candidate turns, and at least one "
        "({} candidate, {} anchor)",
        turns.candidate_seconds.size(), turns.anchor_seconds.size()));
  }
  Timing timing;
  timing.anchor = anchor_name;
  for (size_t pair = 0; pair < turns.candidate_seconds.size(); ++pair) {
    double candidate = turns.candidate_seconds[pair], anchor = turns.anchor_seconds[pair];
    if (!(candidate > 0) || !(anchor > 0)) {
      throw UserError(
          fmt::format("the evaluator's timed pair {} has a per-call time that is not "
                      "positive",
                      pair + 1));
    }
    timing.ratios.push_back(candidate / anchor);
  }
  summarize_ratios(timing, turns.anchor_seconds, turns.candidate_seconds);
  timing.candidate_calls_per_turn = turns.candidate_calls_per_turn;
  timing.anchor_calls_per_turn = turns.anchor_calls_per_turn;
  timing.kernel_seconds = turns.kernel_seconds;
  // The stopping rule of time_paired, applied to pairs timed elsewhere.
  MedianInterval ratio = median_interval_series(timing.ratios);
  double half_width = std::max(ratio.median - ratio.low, ratio.high - ratio.median) / ratio.median;
  timing.converged = half_width <= target_half_width;
  return timing;
}

std::string base64_encode(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  std::string text;
  text.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    uint32_t chunk = static_cast<uint32_t>(bytes[i]) << 16;
    if (i + 1 < size) chunk |= static_cast<uint32_t>(bytes[i + 1]) << 8;
    if (i + 2 < size) chunk |= bytes[i + 2];
    text += kAlphabet[(chunk >> 18) & 63];
    text += kAlphabet[(chunk >> 12) & 63];
    text += i + 1 < size ? kAlphabet[(chunk >> 6) & 63] : '=';
    text += i + 2 < size ? kAlphabet[chunk & 63] : '=';
  }
  return text;
}

std::vector<uint8_t> base64_decode(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (size_t i = 0; i < kAlphabet.size(); ++i) value[static_cast<uint8_t>(kAlphabet[i])] = int(i);
  std::vector<uint8_t> bytes;
  bytes.reserve(text.size() / 4 * 3);
  uint32_t chunk = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r') continue;
    int digit = value[static_cast<uint8_t>(c)];
    if (digit < 0) throw UserError(fmt::format("invalid base64 character '{}'", c));
    chunk = (chunk << 6) | static_cast<uint32_t>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<uint8_t>((chunk >> bits) & 0xff));
    }
  }
  return bytes;
}

}  // namespace accelopt::platform::command
