#include "platform/command/evaluator_protocol.h"

#include <gtest/gtest.h>

#include <cstring>

#include "common/error.h"
#include "task/task.h"

namespace accelopt::platform::command {
namespace {

task::Task silu_task() {
  return task::load_task(ACCELOPT_SOURCE_DIR "/bench/cpu/silu");
}

std::string floats_base64(const std::vector<float>& values) {
  return base64_encode(values.data(), values.size() * sizeof(float));
}

TEST(Base64, RoundTripsEveryLength) {
  std::string text = "accelopt evaluator";
  for (size_t length = 0; length <= text.size(); ++length) {
    std::string encoded = base64_encode(text.data(), length);
    std::vector<uint8_t> decoded = base64_decode(encoded);
    EXPECT_EQ(std::string(decoded.begin(), decoded.end()), text.substr(0, length)) << encoded;
  }
  EXPECT_EQ(base64_encode("Man", 3), "TWFu");
  EXPECT_EQ(base64_encode("Ma", 2), "TWE=");
  EXPECT_THROW(base64_decode("TW*u"), UserError);
}

TEST(EvaluatorRequest, CarriesTaskKernelAnchorAndInputs) {
  task::Task task = silu_task();
  EvaluatorRequest request;
  request.task = &task;
  request.workload = &task.workload("small");
  request.header = "// header";
  request.source = "kernel source";
  request.anchor_source = "anchor source";
  request.anchor_name = "parent";
  request.correctness = CorrectnessMode::kValues;
  request.cases = {{7, {std::vector<float>{1.5f, -2.0f}}}};
  Json json = request_to_json(request);
  EXPECT_EQ(json["protocol"], kProtocolVersion);
  EXPECT_EQ(json["task"]["name"], "silu");
  EXPECT_EQ(json["task"]["definition"]["entry_point"], "kernel");
  EXPECT_EQ(json["workload"]["axes"]["M"], 32);
  EXPECT_EQ(json["kernel"]["source"], "kernel source");
  EXPECT_EQ(json["anchor"]["name"], "parent");
  EXPECT_EQ(json["correctness"], "values");
  EXPECT_EQ(json["cases"][0]["seed"], 7);
  std::vector<uint8_t> bytes = base64_decode(json["cases"][0]["inputs"]["x"].get<std::string>());
  ASSERT_EQ(bytes.size(), 8u);
  float first = 0;
  std::memcpy(&first, bytes.data(), sizeof first);
  EXPECT_EQ(first, 1.5f);
  EXPECT_EQ(json["timing"]["min_pairs"], 10);

  request.measure_time = false;
  EXPECT_TRUE(request_to_json(request)["timing"].is_null());
}

TEST(EvaluatorReply, ParsesStatusOutputsAndTurns) {
  task::Task task = silu_task();
  const task::Workload& workload = task.workload("small");
  std::vector<float> values(32 * 64, 0.25f);
  Json reply = {{"protocol", kProtocolVersion},
                {"status", "PASSED"},
                {"compile_seconds", 1.5},
                {"outputs", {{{"seed", 1}, {"values", {{"out", floats_base64(values)}}}}}},
                {"timing",
                 {{"candidate_seconds", {1e-3, 2e-3}},
                  {"anchor_seconds", {2e-3, 4e-3}},
                  {"candidate_calls_per_turn", 5}}}};
  EvaluatorReply parsed = parse_reply(reply.dump(), task, workload);
  EXPECT_EQ(parsed.status, Status::kPassed);
  EXPECT_EQ(parsed.compile_seconds, 1.5);
  ASSERT_EQ(parsed.outputs.size(), 1u);
  EXPECT_EQ(parsed.outputs[0].values[0], values);
  ASSERT_TRUE(parsed.turns);
  EXPECT_EQ(parsed.turns->anchor_seconds[1], 4e-3);
  EXPECT_EQ(parsed.turns->candidate_calls_per_turn, 5);
}

TEST(EvaluatorReply, RejectsWhatBreaksTheProtocolNamingTheField) {
  task::Task task = silu_task();
  const task::Workload& workload = task.workload("small");
  auto error_of = [&](const Json& reply) -> std::string {
    try {
      parse_reply(reply.dump(), task, workload);
    } catch (const UserError& error) {
      return error.what();
    }
    return "accepted";
  };
  Json good = {{"protocol", kProtocolVersion}, {"status", "PASSED"}};
  EXPECT_EQ(error_of(good), "accepted");
  Json old = good;
  old["protocol"] = "accelopt-evaluator/0";
  EXPECT_NE(error_of(old).find("protocol: \"accelopt-evaluator/0\""), std::string::npos);
  Json unknown = good;
  unknown["status"] = "FINE";
  EXPECT_NE(error_of(unknown).find("status"), std::string::npos);
  Json short_values = good;
  short_values["outputs"] = {{{"seed", 1}, {"values", {{"out", "AAAA"}}}}};
  EXPECT_NE(error_of(short_values).find("outputs[0].values.out: 3 bytes"), std::string::npos);
  Json missing_tensor = good;
  missing_tensor["outputs"] = {{{"seed", 1}, {"values", Json::object()}}};
  EXPECT_NE(error_of(missing_tensor).find("outputs[0].values.out: missing"), std::string::npos);
  Json uneven = good;
  uneven["timing"] = {{"candidate_seconds", {1.0}}, {"anchor_seconds", Json::array()}};
  EXPECT_NE(error_of(uneven).find("differ in length"), std::string::npos);
  EXPECT_NE(error_of(Json("text")).find("not one JSON object"), std::string::npos);
}

TEST(ReportedTiming, AFasterCandidateHasItsSpeedupIntervalAndLatency) {
  ReportedTurns turns;
  for (int pair = 0; pair < 30; ++pair) {
    double noise = 1 + 0.01 * (pair % 3);  // a slow phase slows both sides of a pair alike
    turns.candidate_seconds.push_back(1e-3 * noise);
    turns.anchor_seconds.push_back(4e-3 * noise);
  }
  turns.candidate_calls_per_turn = 20;
  Timing timing = timing_from_reported(turns, "parent", 0.02);
  EXPECT_EQ(timing.anchor, "parent");
  EXPECT_EQ(timing.pairs, 30);
  EXPECT_DOUBLE_EQ(timing.speedup, 4.0);  // the paired ratios cancel the shared noise
  EXPECT_LE(timing.speedup_low, 4.0);
  EXPECT_GE(timing.speedup_high, 4.0);
  EXPECT_TRUE(timing.converged);
  EXPECT_NEAR(timing.latency_seconds, 1.01e-3, 1e-9);
  EXPECT_EQ(timing.candidate_calls_per_turn, 20);
  EXPECT_EQ(timing.ratios.size(), 30u);
}

TEST(ReportedTiming, AWideIntervalIsNotConverged) {
  ReportedTurns turns;
  for (int pair = 0; pair < 10; ++pair) {
    turns.candidate_seconds.push_back(pair % 2 ? 1.0 : 2.0);
    turns.anchor_seconds.push_back(1.0);
  }
  EXPECT_FALSE(timing_from_reported(turns, "baseline", 0.02).converged);
}

TEST(ReportedTiming, MismatchedEmptyOrNonPositiveTurnsAreTheEvaluatorsFault) {
  ReportedTurns turns;
  EXPECT_THROW(timing_from_reported(turns, "baseline", 0.02), UserError);
  turns.candidate_seconds = {1.0, 1.0};
  turns.anchor_seconds = {1.0};
  EXPECT_THROW(timing_from_reported(turns, "baseline", 0.02), UserError);
  turns.anchor_seconds = {1.0, 0.0};
  EXPECT_THROW(timing_from_reported(turns, "baseline", 0.02), UserError);
}

}  // namespace
}  // namespace accelopt::platform::command
