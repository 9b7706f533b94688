// The wire between accelopt and an external evaluator: one JSON request on the evaluator's stdin,
// one JSON reply on its stdout (its stderr is kept as the verdict's log).
// docs/evaluator-protocol.md is the full reference, with examples.
//
// Why this shape: an evaluator is usually a short script on a machine accelopt cannot reach in any
// other way (a Trainium host, a GPU box over ssh), written in whatever language the vendor's SDK
// speaks. One request and one reply per kernel, both plain JSON, keep such a script a page long and
// let a person replay a request by hand (`evaluator < request.json`). The version string is checked
// on both sides so that an old evaluator fails plainly instead of half-answering. Tensors travel as
// base64 of little-endian float32: a small workload's inputs are kilobytes to a few megabytes, and
// an evaluator that checks correctness itself gets seeds instead of tensors.
//
// accelopt keeps the judgement: the evaluator reports what happened (status, outputs or their
// checksums, per-call seconds of each timed turn); the statistics, the roofline score and the
// physics check are computed here, the same way for every platform.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "platform/platform.h"

namespace accelopt::platform::command {

inline constexpr const char* kProtocolVersion = "accelopt-evaluator/1";

// Who checks correctness. Stored in configs by name: "evaluator", "values", "checksums".
enum class CorrectnessMode : uint8_t {
  kEvaluator = 0,  // the evaluator runs the reference itself and reports the errors
  kValues = 1,     // the evaluator returns the outputs; accelopt compares them to the reference
  kChecksums = 2,  // the evaluator returns sum and L2 norm per output: gross errors only
};
std::string_view correctness_mode_name(CorrectnessMode mode);
std::optional<CorrectnessMode> parse_correctness_mode(std::string_view name);

// One seed's inputs, in definition order (sent only when accelopt checks correctness).
struct RequestCase {
  uint64_t seed = 0;
  std::vector<std::vector<float>> inputs;
};

struct EvaluatorRequest {
  const task::Task* task = nullptr;
  const task::Workload* workload = nullptr;
  std::string header;  // the generated accelopt_task.h, for evaluators that compile C/C++/CUDA
  std::string source, anchor_source, anchor_name, reference_source;
  CorrectnessMode correctness = CorrectnessMode::kEvaluator;
  std::vector<RequestCase> cases;  // seeds only, when the evaluator checks correctness
  bool measure_time = true;
  TimingOptions timing;
};
Json request_to_json(const EvaluatorRequest& request);

struct OutputChecksum {
  double sum = 0, l2 = 0;
};

// One seed's outputs as the evaluator reported them: values, or checksums, per output tensor.
struct SeedOutputs {
  uint64_t seed = 0;
  std::vector<std::vector<float>> values;  // in definition order, when values were sent
  std::vector<OutputChecksum> checksums;   // in definition order, when checksums were sent
};

// The evaluator's timed turns: per-call seconds of each side, one entry per pair, in the order
// timed (docs/evaluator-protocol.md, "timing").
struct ReportedTurns {
  std::vector<double> candidate_seconds;
  std::vector<double> anchor_seconds;  // same length: entry i is pair i's anchor turn
  int candidate_calls_per_turn = 1;
  int anchor_calls_per_turn = 1;
  double kernel_seconds = 0;  // time spent inside timed turns, both sides
};

struct EvaluatorReply {
  Status status = Status::kPassed;
  std::string message, log;
  std::optional<Correctness> correctness;  // when the evaluator checked
  std::vector<SeedOutputs> outputs;        // when accelopt checks
  std::optional<ReportedTurns> turns;      // when timed and passed
  double compile_seconds = 0;
  Json device = Json::object();   // what the evaluator ran on, free-form
  Json sandbox = Json::object();  // which measures were in force there
};

// Throws UserError naming the field for a reply that does not follow the protocol; `task` gives
// the output tensors' names and sizes.
EvaluatorReply parse_reply(const std::string& text, const task::Task& task,
                           const task::Workload& workload);

// The reported turns judged as accelopt judges its own (platform/paired_timing.h): the median
// ratio's interval, converged when its half-width is within `target_half_width`. Throws UserError
// for turns no measurement gives (none, or a time that is not positive).
Timing timing_from_reported(const ReportedTurns& turns, const std::string& anchor_name,
                            double target_half_width);

std::string base64_encode(const void* data, size_t size);
std::vector<uint8_t> base64_decode(std::string_view text);  // throws UserError on bad input

}  // namespace accelopt::platform::command
