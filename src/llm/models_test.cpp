// ModelSet: what agents call. Cost in the ledger, budget stops, exact replay, no key anywhere.
#include "llm/models.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "common/error.h"
#include "common/files.h"
#include "llm/commands.h"
#include "llm/test_server.h"

namespace accelopt::llm {
namespace {

// The llm part is told its role names (roles::kRoleNames in the program).
constexpr std::string_view kRoles[] = {"planner", "executor", "fixer", "summarizer"};

using testing::openai_answer;
using testing::TestServer;

constexpr const char* kKey = "sk-models-test-KEY-987654321";

ClientHooks test_hooks() {
  ClientHooks hooks;
  hooks.sleep = [](double, const CancelToken&) {};
  hooks.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (name == "TEST_KEY") return kKey;
    return std::nullopt;
  };
  return hooks;
}

std::string config_text(const std::string& url, const std::string& extra = "") {
  return "[models.local]\nbase_url = \"" + url +
         "/v1\"\nmodel = \"served-model\"\napi_key_env = \"TEST_KEY\"\n"
         "price_input_per_mtok = 2\nprice_output_per_mtok = 10\nmax_retries = 1\n"
         "[models.big]\nbase_url = \"" +
         url +
         "\"\nmodel = \"big-model\"\napi_key_env = \"TEST_KEY\"\n"
         "price_input_per_mtok = 100\nprice_output_per_mtok = 100\n"
         "[roles]\nplanner = \"big\"\nexecutor = \"local\"\nfixer = \"local\"\n"
         "summarizer = \"local\"\n" +
         extra;
}

ChatRequest ask(std::string text) {
  ChatRequest request;
  request.messages = {{"user", std::move(text)}};
  return request;
}

// Answers "echo: <last message>" with 1000 prompt and 500 completion tokens.
TestServer::Handler echo_handler() {
  return [](const httplib::Request& request, httplib::Response& response, int) {
    Json body = Json::parse(request.body);
    std::string last = body["messages"].back()["content"];
    Json answer = openai_answer("echo: " + last, 1000, 500);
    answer["choices"][0]["message"]["reasoning_content"] = "thinking about " + last;
    answer["model"] = body["model"];
    response.set_content(answer.dump(), "application/json");
  };
}

TEST(ModelSet, RolesRouteToTheirModelsAndTheLedgerHasTheCost) {
  TestServer server(echo_handler());
  MemoryLedger ledger;
  ModelSet models(parse_llm_config(config_text(server.url()), "t.toml", kRoles),
                  {&ledger, "run-1", test_hooks(), nullptr});
  ChatResponse planner = models.chat("planner", ask("plan"));
  ChatResponse executor = models.chat("executor", ask("write"));
  EXPECT_EQ(planner.content, "echo: plan");
  EXPECT_EQ(planner.model, "big-model");
  EXPECT_EQ(executor.model, "served-model");
  std::vector<CallRecord> records = ledger.records("run-1");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].role, "planner");
  EXPECT_EQ(records[0].model, "big");
  EXPECT_DOUBLE_EQ(records[0].cost_usd, (1000 * 100.0 + 500 * 100.0) / 1e6);
  EXPECT_EQ(records[1].role, "executor");
  EXPECT_DOUBLE_EQ(records[1].cost_usd, (1000 * 2.0 + 500 * 10.0) / 1e6);
  EXPECT_EQ(records[1].prompt_tokens, 1000);
  EXPECT_EQ(records[1].status, CallStatus::kOk);
  EXPECT_EQ(records[1].request_hash.size(), 64u);
  EXPECT_THROW(models.chat("planer", ask("x")), UserError);
}

TEST(ModelSet, FailedCallsAreInTheLedgerWithTheirStatus) {
  TestServer server([](const auto&, auto& response, int) {
    response.status = 404;
    response.set_content(R"({"error":{"message":"no such model"}})", "application/json");
  });
  MemoryLedger ledger;
  ModelSet models(parse_llm_config(config_text(server.url()), "t.toml", kRoles),
                  {&ledger, "run", test_hooks(), nullptr});
  EXPECT_THROW(models.chat("fixer", ask("fix")), LlmError);
  auto records = ledger.records("run");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, CallStatus::kNotFound);
  EXPECT_NE(records[0].error.find("no such model"), std::string::npos);
}

TEST(ModelSet, BudgetStopsTheRunAndNamesTheCap) {
  TestServer server(echo_handler());
  {
    MemoryLedger ledger;
    ModelSet models(
        parse_llm_config(config_text(server.url(), "[budget]\ncalls = 2\n"), "t.toml", kRoles),
        {&ledger, "run", test_hooks(), nullptr});
    models.chat("executor", ask("one"));
    models.chat("executor", ask("two"));
    try {
      models.chat("executor", ask("three"));
      FAIL();
    } catch (const BudgetExceeded& error) {
      EXPECT_EQ(error.cap(), BudgetCap::kCalls);
      EXPECT_NE(std::string(error.what()).find("calls cap of 2"), std::string::npos);
    }
    EXPECT_EQ(ledger.records("run").back().status, CallStatus::kBudgetExceeded);
  }
  int calls_before = server.calls();
  // Each call costs 0.007 USD: the first passes, after it 0.007 + estimate > 0.01.
  ModelSet models(
      parse_llm_config(config_text(server.url(), "[budget]\nusd = 0.01\n"), "t.toml", kRoles),
      {nullptr, "run", test_hooks(), nullptr});
  ChatRequest request = ask("one");
  request.options.max_tokens = 500;
  models.chat("executor", request);
  EXPECT_NEAR(models.budget().spent().usd, 0.007, 1e-12);
  try {
    models.chat("executor", request);
    FAIL();
  } catch (const BudgetExceeded& error) {
    EXPECT_EQ(error.cap(), BudgetCap::kUsd);
    EXPECT_NE(std::string(error.what()).find("USD cap"), std::string::npos);
  }
  EXPECT_EQ(server.calls(), calls_before + 1);  // the refused call never reached the server

  ModelSet tokens(
      parse_llm_config(config_text(server.url(), "[budget]\ntokens = 1000\n"), "t.toml", kRoles),
      {nullptr, "run", test_hooks(), nullptr});
  tokens.chat("executor", ask("x"));  // 1500 tokens: over the cap after the call
  try {
    tokens.chat("executor", ask("y"));
    FAIL();
  } catch (const BudgetExceeded& error) {
    EXPECT_EQ(error.cap(), BudgetCap::kTokens);
  }
}

TEST(ModelSet, RecordThenReplayExactlyWithNoServer) {
  TempDir dir;
  std::string url;
  std::vector<ChatResponse> recorded;
  ChatRequest request = ask("make it fast");
  request.options.temperature = 0.3;
  {
    TestServer server(echo_handler());
    url = server.url();
    ModelSet models(parse_llm_config(config_text(url,
                                                 "[replay]\nmode = \"record\"\n"
                                                 "dir = \"" +
                                                     dir.path().string() + "\"\n"),
                                     "t.toml", kRoles),
                    {nullptr, "rec", test_hooks(), nullptr});
    recorded.push_back(models.chat("executor", request));
    recorded.push_back(models.chat("planner", ask("plan it")));
  }
  // The server is gone: only the cassettes can answer.
  MemoryLedger ledger;
  ModelSet replay(parse_llm_config(config_text(url,
                                               "[replay]\nmode = \"replay\"\n"
                                               "dir = \"" +
                                                   dir.path().string() + "\"\n"),
                                   "t.toml", kRoles),
                  {&ledger, "rep", test_hooks(), nullptr});
  ChatResponse again = replay.chat("executor", request);
  EXPECT_TRUE(again.replayed);
  again.replayed = false;
  EXPECT_EQ(again.to_json(), recorded[0].to_json());
  EXPECT_EQ(replay.chat("planner", ask("plan it")).content, recorded[1].content);
  auto records = ledger.records("rep");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(records[0].replayed);
  EXPECT_DOUBLE_EQ(records[0].cost_usd, (1000 * 2.0 + 500 * 10.0) / 1e6);

  // A request never recorded: an error naming its hash and its first words.
  ChatRequest other = ask("an unrecorded   question about tiling");
  try {
    replay.chat("executor", other);
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kReplayMiss);
    std::string message = error.what();
    EXPECT_NE(message.find("an unrecorded question about tiling"), std::string::npos) << message;
    EXPECT_NE(message.find(ledger.records("rep").back().request_hash), std::string::npos);
  }
  // Other options are another request.
  request.options.temperature = 0.4;
  EXPECT_THROW(replay.chat("executor", request), LlmError);
}

// The agents' prompts hold latencies measured in the run; their replay_key leaves them out, so a
// replayed run whose figures differ still finds every recorded call.
TEST(ModelSet, ReplayFindsCallsByTheirReplayKey) {
  TempDir dir;
  std::string url;
  std::string replay = "dir = \"" + dir.path().string() + "\"\n";
  auto measured = [](const std::string& latency, const std::string& key) {
    ChatRequest request = ask("The kernel runs in " + latency + " ms. Make it faster.");
    request.replay_key = key;
    return request;
  };
  std::vector<std::string> recorded;
  {
    TestServer server(echo_handler());
    url = server.url();
    ModelSet models(parse_llm_config(config_text(url, "[replay]\nmode = \"record\"\n" + replay),
                                     "t.toml", kRoles),
                    {nullptr, "rec", test_hooks(), nullptr});
    recorded.push_back(models.chat("executor", measured("1.25", "i1/b0/p0")).content);
    recorded.push_back(models.chat("executor", measured("1.31", "i1/b0/p1")).content);
  }
  MemoryLedger ledger;
  ModelSet models(parse_llm_config(config_text(url, "[replay]\nmode = \"replay\"\n" + replay),
                                   "t.toml", kRoles),
                  {&ledger, "rep", test_hooks(), nullptr});
  EXPECT_EQ(models.chat("executor", measured("1.40", "i1/b0/p0")).content, recorded[0]);
  EXPECT_EQ(models.chat("executor", measured("0.97", "i1/b0/p1")).content, recorded[1]);
  EXPECT_THROW(models.chat("executor", measured("1.25", "i1/b0/p2")), LlmError);
  // The ledger keeps the hash of what was sent: the two replays differ from the recordings'.
  auto records = ledger.records("rep");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_TRUE(records[0].replayed);
  EXPECT_NE(records[0].request_hash, records[1].request_hash);
}

// Temperature 0 or a fixed seed: the same request within the run is answered once and reused.
TEST(ModelSet, DeterministicAnswersAreNotPaidTwice) {
  TestServer server(echo_handler());
  MemoryLedger ledger;
  ModelSet models(parse_llm_config(config_text(server.url()), "t.toml", kRoles),
                  {&ledger, "run", test_hooks(), nullptr});
  ChatRequest cold = ask("make it fast");
  cold.options.temperature = 0;
  ChatResponse first = models.chat("executor", cold);
  ChatResponse second = models.chat("executor", cold);
  EXPECT_EQ(server.calls(), 1);
  EXPECT_EQ(first.to_json(), second.to_json());
  models.chat("executor", ask("make it fast"));  // sampled: asked again
  EXPECT_EQ(server.calls(), 2);
  ChatRequest seeded = ask("make it fast");
  seeded.options.seed = 7;
  seeded.options.temperature = 0.8;
  models.chat("executor", seeded);
  models.chat("executor", seeded);
  EXPECT_EQ(server.calls(), 3);
  models.chat("fixer", cold);  // the same model under another role: the same answer
  EXPECT_EQ(server.calls(), 3);

  auto records = ledger.records("run");
  ASSERT_EQ(records.size(), 6u);
  EXPECT_FALSE(records[0].reused);
  EXPECT_TRUE(records[1].reused);
  EXPECT_DOUBLE_EQ(records[1].cost_usd, 0);
  EXPECT_EQ(records[1].prompt_tokens, 0);
  EXPECT_EQ(records[1].request_hash, records[0].request_hash);
  EXPECT_DOUBLE_EQ(total(records).cost_usd, 3 * (1000 * 2.0 + 500 * 10.0) / 1e6);
}

TEST(ModelSet, AutoModeRecordsMissesAndReplaysHits) {
  TempDir dir;
  TestServer server(echo_handler());
  ModelSet models(parse_llm_config(config_text(server.url(),
                                               "[replay]\nmode = \"auto\"\n"
                                               "dir = \"" +
                                                   dir.path().string() + "\"\n"),
                                   "t.toml", kRoles),
                  {nullptr, "auto", test_hooks(), nullptr});
  ChatResponse first = models.chat("executor", ask("q"));
  ChatResponse second = models.chat("executor", ask("q"));
  EXPECT_FALSE(first.replayed);
  EXPECT_TRUE(second.replayed);
  EXPECT_EQ(first.content, second.content);
  EXPECT_EQ(server.calls(), 1);
}

TEST(ModelSet, TornCassetteIsDetected) {
  TempDir dir;
  TestServer server(echo_handler());
  std::string replay_config =
      "[replay]\nmode = \"record\"\ndir = \"" + dir.path().string() + "\"\n";
  ModelSet recorder(parse_llm_config(config_text(server.url(), replay_config), "t.toml", kRoles),
                    {nullptr, "r", test_hooks(), nullptr});
  recorder.chat("executor", ask("q"));
  auto cassette = std::filesystem::directory_iterator(dir.path())->path();
  std::string content = read_file(cassette);
  for (std::string damaged :
       {content.substr(0, content.size() / 2),
        std::string(content).replace(content.find("echo: q"), 7, "echo: Q")}) {
    write_file_atomic(cassette, damaged);
    ModelSet replay(
        parse_llm_config(config_text(server.url(), "[replay]\nmode = \"replay\"\ndir = \"" +
                                                       dir.path().string() + "\"\n"),
                         "t.toml", kRoles),
        {nullptr, "r", test_hooks(), nullptr});
    try {
      replay.chat("executor", ask("q"));
      FAIL();
    } catch (const LlmError& error) {
      EXPECT_NE(std::string(error.what()).find("is corrupt"), std::string::npos) << error.what();
    }
  }
}

TEST(ModelSet, KeysNeverReachLedgerCassettesOrHash) {
  TempDir dir;
  TestServer server([](const auto& request, auto& response, int call) {
    if (call == 0) {
      response.status = 401;
      response.set_content(
          "{\"error\":{\"message\":\"bad key " + request.get_header_value("Authorization") + "\"}}",
          "application/json");
    } else {
      echo_handler()(request, response, call);
    }
  });
  auto ledger_path = dir.path() / "ledger.jsonl";
  JsonlLedger ledger(ledger_path);
  auto cassettes = dir.path() / "cassettes";
  ModelSet models(
      parse_llm_config(config_text(server.url(), "[replay]\nmode = \"record\"\ndir = \"" +
                                                     cassettes.string() + "\"\n"),
                       "t.toml", kRoles),
      {&ledger, "run", test_hooks(), nullptr});
  EXPECT_THROW(models.chat("executor", ask("q")), LlmError);
  models.chat("executor", ask("q"));
  std::string everything = read_file(ledger_path);
  for (const auto& entry : std::filesystem::directory_iterator(cassettes)) {
    everything += read_file(entry.path());
  }
  EXPECT_NE(everything.find("bad key"), std::string::npos);  // the error is there, the key is not
  EXPECT_EQ(everything.find(kKey), std::string::npos);
  EXPECT_EQ(everything.find("KEY-987654321"), std::string::npos);
}

TEST(Commands, PingPrintsLatencyAnswerUsageAndCost) {
  TestServer server(echo_handler());
  TempDir dir;
  auto path = dir.path() / "accelopt.toml";
  write_file_atomic(path, config_text(server.url()));
  std::ostringstream out;
  EXPECT_EQ(run_llm_ping(path, kRoles, "local", out, test_hooks()), 0);
  std::string text = out.str();
  EXPECT_NE(text.find("latency"), std::string::npos) << text;
  EXPECT_NE(text.find("echo: Reply with the single word: pong"), std::string::npos) << text;
  EXPECT_NE(text.find("prompt 1000, completion 500"), std::string::npos) << text;
  EXPECT_NE(text.find("cost      $0.007\n"), std::string::npos) << text;

  std::ostringstream failed;
  server.stop();
  EXPECT_EQ(run_llm_ping(path, kRoles, "local", failed, test_hooks()), 1);
  EXPECT_NE(failed.str().find("cannot connect"), std::string::npos) << failed.str();
  EXPECT_THROW(run_llm_ping(path, kRoles, "locl", failed, test_hooks()), UserError);
}

// Without a model name (the hint a run prints when its models do not answer) every configured
// model is pinged.
TEST(Commands, PingWithoutAModelPingsEveryModel) {
  TestServer server(echo_handler());
  TempDir dir;
  auto path = dir.path() / "accelopt.toml";
  write_file_atomic(path, config_text(server.url()));
  std::ostringstream out;
  EXPECT_EQ(run_llm_ping(path, kRoles, "", out, test_hooks()), 0);
  EXPECT_NE(out.str().find("model local"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("model big"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("echo: Reply with the single word: pong"), std::string::npos)
      << out.str();
}

// A server that accepts the connection and never answers: the ping gives up after its own
// timeout, not the model's 600 s.
TEST(Commands, PingGivesUpAfterItsTimeout) {
  TestServer* self = nullptr;
  TestServer server([&](const auto&, auto& response, int) {
    self->hang(30);
    response.set_content("{}", "application/json");
  });
  self = &server;
  TempDir dir;
  auto path = dir.path() / "accelopt.toml";
  write_file_atomic(path, config_text(server.url()));
  std::ostringstream out;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run_llm_ping(path, kRoles, "local", out, test_hooks(), 0.5), 1);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10);
  EXPECT_NE(out.str().find("ping failed (timeout)"), std::string::npos) << out.str();
  server.stop();
}

// Before a run: every model a role uses is asked once; an unreachable one is named with why.
TEST(Commands, CheckModelsNamesEachUnreachableModel) {
  TestServer server(echo_handler());
  std::string closed_url;
  {
    TestServer closed(echo_handler());
    closed_url = closed.url();
  }
  std::string text = "[models.local]\nbase_url = \"" + server.url() +
                     "/v1\"\nmodel = \"served-model\"\n"
                     "[models.gone]\nbase_url = \"" +
                     closed_url +
                     "/v1\"\nmodel = \"gone-model\"\n"
                     "[models.unused]\nbase_url = \"" +
                     closed_url +
                     "/v1\"\nmodel = \"unused-model\"\n"
                     "[roles]\nplanner = \"gone\"\nexecutor = \"local\"\nfixer = \"local\"\n"
                     "summarizer = \"local\"\n";
  std::vector<ModelCheck> checks =
      check_models(parse_llm_config(text, "t.toml", kRoles), 5, test_hooks());
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].model, "gone");
  EXPECT_FALSE(checks[0].reachable);
  EXPECT_EQ(checks[0].status, CallStatus::kConnectionError);
  EXPECT_NE(checks[0].error.find("model gone (gone-model at " + closed_url), std::string::npos)
      << checks[0].error;
  EXPECT_EQ(checks[1].model, "local");
  EXPECT_TRUE(checks[1].reachable) << checks[1].error;
  EXPECT_TRUE(checks[1].error.empty());
  EXPECT_EQ(server.calls(), 1);
}

}  // namespace
}  // namespace accelopt::llm
