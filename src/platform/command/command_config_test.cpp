#include "platform/command/command_config.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace accelopt::platform::command {
namespace {

TEST(CommandConfig, ReadsEvaluatorModeTimeoutEnvironmentAndCeilings) {
  Json json = Json::parse(R"({
    "name": "box", "argv": ["evaluators/run", "--host", "me@box"], "correctness": "values",
    "timeout_seconds": 30, "environment": ["A=1"], "kernel_extension": ".py",
    "ceilings": {"cpu_model": "trn1", "isa": "nki", "fma_gflops": 23750, "vector_gflops": 286.7,
                 "bandwidth": [{"working_set_bytes": 1048576, "gbytes_per_second": 440}]}})");
  CommandPlatformOptions options = parse_command_config(json, "/etc/accelopt", "box.json");
  EXPECT_EQ(options.name, "box");
  EXPECT_EQ(options.argv.front(), "/etc/accelopt/evaluators/run");
  EXPECT_EQ(options.argv.back(), "me@box");
  EXPECT_EQ(options.correctness, CorrectnessMode::kValues);
  EXPECT_EQ(options.timeout, std::chrono::milliseconds(30000));
  EXPECT_EQ(options.environment, std::vector<std::string>{"A=1"});
  EXPECT_EQ(options.kernel_extension, ".py");
  EXPECT_EQ(options.ceilings.fma_gflops, 23750);
}

TEST(CommandConfig, NamesTheFileAndFieldOfAMistake) {
  auto message = [](const std::string& text) -> std::string {
    try {
      parse_command_config(Json::parse(text), "/", "box.json");
    } catch (const UserError& error) {
      return error.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message(R"({"argv": ["/bin/true"]})"), "accepted");
  EXPECT_NE(message(R"({"argv": []})").find("box.json: argv:"), std::string::npos);
  EXPECT_NE(message(R"({"argv": ["/bin/true"], "correctness": "trust"})").find("correctness"),
            std::string::npos);
  EXPECT_NE(message(R"({"argv": ["/bin/true"], "timeout_seconds": -1})").find("timeout_seconds"),
            std::string::npos);
  EXPECT_NE(message(R"({"argv": ["/bin/true"], "environment": ["A"]})").find("NAME=VALUE"),
            std::string::npos);
}

}  // namespace
}  // namespace accelopt::platform::command
