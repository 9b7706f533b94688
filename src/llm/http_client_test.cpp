// The HTTP client against a local server that behaves as real ones do, the bad days included.
#include "llm/http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>

#include "llm/http.h"
#include "llm/test_server.h"

namespace accelopt::llm {
namespace {

using testing::anthropic_answer;
using testing::openai_answer;
using testing::TestServer;

constexpr const char* kKey = "sk-test-SECRET-0123456789";

ModelConfig model_at(const TestServer& server, Provider provider = Provider::kOpenAi) {
  ModelConfig model;
  model.name = "test";
  model.provider = provider;
  model.base_url = server.url() + (provider == Provider::kOpenAi ? "/v1" : "");
  model.model = "served-model";
  model.api_key_env = "TEST_KEY";
  model.timeout_s = 5;
  model.connect_timeout_s = 2;
  model.max_retries = 3;
  model.backoff_initial_s = 0.01;
  model.backoff_max_s = 0.05;
  return model;
}

// Records the waits instead of sleeping.
struct FakeSleep {
  std::mutex mutex;
  std::vector<double> waits;
};

ClientHooks hooks_with(FakeSleep* sleeps, std::optional<std::string> key = kKey) {
  ClientHooks hooks;
  if (sleeps != nullptr) {
    hooks.sleep = [sleeps](double seconds, const CancelToken&) {
      std::lock_guard lock(sleeps->mutex);
      sleeps->waits.push_back(seconds);
    };
  }
  hooks.getenv = [key](const std::string& name) -> std::optional<std::string> {
    if (name == "TEST_KEY") return key;
    return std::nullopt;
  };
  return hooks;
}

ChatRequest ask(std::string text = "Say hi") {
  ChatRequest request;
  request.messages = {{"system", "You write kernels."}, {"user", std::move(text)}};
  return request;
}

void reply_json(httplib::Response& response, const Json& json, int status = 200) {
  response.status = status;
  response.set_content(json.dump(), "application/json");
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(HttpClient, OpenAiAnswerWithBearerKeyAndOptions) {
  TestServer server([](const auto&, auto& response, int) {
    reply_json(response, openai_answer("hi there", 12, 3));
  });
  ModelConfig model = model_at(server);
  model.defaults.temperature = 0.2;
  auto client = make_model_client(model, hooks_with(nullptr));
  ChatRequest request = ask();
  request.options.max_tokens = 50;
  ChatResponse response = client->complete(request);
  EXPECT_EQ(response.content, "hi there");
  EXPECT_EQ(response.usage.prompt_tokens, 12);
  EXPECT_EQ(response.usage.completion_tokens, 3);
  EXPECT_EQ(response.retries, 0);
  EXPECT_EQ(response.model, "served-model");
  auto received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].path, "/v1/chat/completions");
  EXPECT_EQ(received[0].headers.find("Authorization")->second, std::string("Bearer ") + kKey);
  Json body = Json::parse(received[0].body);
  EXPECT_EQ(body["temperature"], 0.2);
  EXPECT_EQ(body["max_tokens"], 50);
  EXPECT_EQ(body["model"], "served-model");
}

TEST(HttpClient, AnthropicAnswerWithApiKeyHeaderAndVersion) {
  TestServer server([](const auto&, auto& response, int) {
    Json answer = anthropic_answer("bonjour", 20, 4);
    answer["content"].insert(
        answer["content"].begin(),
        Json{{"type", "thinking"}, {"thinking", "French?"}, {"signature", "s"}});
    reply_json(response, answer);
  });
  auto client = make_model_client(model_at(server, Provider::kAnthropic), hooks_with(nullptr));
  ChatResponse response = client->complete(ask());
  EXPECT_EQ(response.content, "bonjour");
  EXPECT_EQ(response.reasoning, "French?");
  EXPECT_EQ(response.usage.prompt_tokens, 20);
  auto received = server.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].path, "/v1/messages");
  EXPECT_EQ(received[0].headers.find("x-api-key")->second, kKey);
  EXPECT_EQ(received[0].headers.count("anthropic-version"), 1u);
  EXPECT_EQ(received[0].headers.count("Authorization"), 0u);
  Json body = Json::parse(received[0].body);
  EXPECT_EQ(body["system"], "You write kernels.");
  EXPECT_EQ(body["messages"].size(), 1u);
}

TEST(HttpClient, HonoursRetryAfterOfOneSecondForReal) {
  std::vector<std::chrono::steady_clock::time_point> times;
  std::mutex mutex;
  TestServer server([&](const auto&, auto& response, int call) {
    {
      std::lock_guard lock(mutex);
      times.push_back(std::chrono::steady_clock::now());
    }
    if (call == 0) {
      response.set_header("Retry-After", "1");
      reply_json(response, Json{{"error", {{"message", "slow down"}}}}, 429);
    } else {
      reply_json(response, openai_answer("ok"));
    }
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));  // real sleep
  ChatResponse response = client->complete(ask());
  EXPECT_EQ(response.content, "ok");
  EXPECT_EQ(response.retries, 1);
  ASSERT_EQ(times.size(), 2u);
  double waited = std::chrono::duration<double>(times[1] - times[0]).count();
  EXPECT_GE(waited, 0.95);
  EXPECT_LT(waited, 1.8);
  EXPECT_GE(response.latency_s, 0.95);
}

TEST(HttpClient, RetryAfterDateAndMillisecondsAndCap) {
  TestServer server([](const auto&, auto& response, int call) {
    if (call == 0) {
      response.set_header("Retry-After", "Wed, 21 Oct 2099 07:28:00 GMT");  // far: capped
      reply_json(response, Json::object(), 503);
    } else if (call == 1) {
      response.set_header("retry-after-ms", "250");
      reply_json(response, Json::object(), 429);
    } else {
      reply_json(response, openai_answer("ok"));
    }
  });
  FakeSleep sleeps;
  ModelConfig model = model_at(server);
  model.retry_after_max_s = 7;
  auto client = make_model_client(model, hooks_with(&sleeps));
  EXPECT_EQ(client->complete(ask()).content, "ok");
  ASSERT_EQ(sleeps.waits.size(), 2u);
  EXPECT_DOUBLE_EQ(sleeps.waits[0], 7);
  EXPECT_DOUBLE_EQ(sleeps.waits[1], 0.25);
  EXPECT_NEAR(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), 0, 1e-9);  // past: now
  EXPECT_LT(parse_retry_after("soon"), 0);
}

TEST(HttpClient, ServerErrorThenSuccessBacksOffExponentially) {
  TestServer server([](const auto&, auto& response, int call) {
    if (call < 3) {
      reply_json(response, Json{{"error", "overloaded"}},
                 call == 0 ? 500 : (call == 1 ? 502 : 408));
    } else {
      reply_json(response, openai_answer("finally"));
    }
  });
  FakeSleep sleeps;
  ModelConfig model = model_at(server);
  model.backoff_initial_s = 1;
  model.backoff_max_s = 3;
  auto client = make_model_client(model, hooks_with(&sleeps));
  ChatResponse response = client->complete(ask());
  EXPECT_EQ(response.content, "finally");
  EXPECT_EQ(response.retries, 3);
  EXPECT_EQ(server.calls(), 4);
  ASSERT_EQ(sleeps.waits.size(), 3u);
  // initial·2^n capped at max, times a jitter in [0.5, 1].
  EXPECT_GE(sleeps.waits[0], 0.5);
  EXPECT_LE(sleeps.waits[0], 1);
  EXPECT_GE(sleeps.waits[1], 1);
  EXPECT_LE(sleeps.waits[1], 2);
  EXPECT_GE(sleeps.waits[2], 1.5);
  EXPECT_LE(sleeps.waits[2], 3);
}

TEST(HttpClient, GivesUpAfterMaxRetriesAndSaysSo) {
  TestServer server([](const auto&, auto& response, int) {
    reply_json(response, Json{{"error", {{"message", "Engine overloaded"}}}}, 503);
  });
  FakeSleep sleeps;
  ModelConfig model = model_at(server);
  model.max_retries = 2;
  auto client = make_model_client(model, hooks_with(&sleeps));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kServerError);
    EXPECT_EQ(error.retries(), 2);
    std::string message = error.what();
    EXPECT_NE(message.find("HTTP 503"), std::string::npos) << message;
    EXPECT_NE(message.find("Engine overloaded"), std::string::npos) << message;
    EXPECT_NE(message.find("after 2 retries"), std::string::npos) << message;
  }
  EXPECT_EQ(server.calls(), 3);
}

TEST(HttpClient, AHangEndsAtTheTimeout) {
  TestServer* self = nullptr;
  TestServer server([&](const auto&, auto& response, int) {
    self->hang(10);
    reply_json(response, openai_answer("too late"));
  });
  self = &server;
  ModelConfig model = model_at(server);
  model.timeout_s = 0.5;
  auto client = make_model_client(model, hooks_with(nullptr));
  auto start = std::chrono::steady_clock::now();
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kTimeout);
    EXPECT_NE(std::string(error.what()).find("timeout_s"), std::string::npos);
  }
  EXPECT_LT(seconds_since(start), 1.5);
  EXPECT_EQ(server.calls(), 1);  // a timeout is not retried unless retry_on_timeout
}

TEST(HttpClient, ABodyCutInHalfIsRetriedThenReported) {
  std::string full = openai_answer("a complete answer").dump();
  TestServer server([&](const auto&, auto& response, int) {
    response.set_content_provider(
        full.size(), "application/json", [&](size_t offset, size_t, httplib::DataSink& sink) {
          if (offset == 0) sink.write(full.data(), full.size() / 2);
          return false;  // closes the connection with half the promised bytes sent
        });
  });
  FakeSleep sleeps;
  ModelConfig model = model_at(server);
  model.max_retries = 1;
  auto client = make_model_client(model, hooks_with(&sleeps));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kConnectionError);
    std::string message = error.what();
    EXPECT_NE(message.find("broke after"), std::string::npos) << message;
    EXPECT_NE(message.find("first bytes: «{"), std::string::npos) << message;
  }
  EXPECT_EQ(server.calls(), 2);
}

TEST(HttpClient, AChunkedBodyCutShortIsAConnectionError) {
  std::string full = openai_answer("a complete answer").dump();
  TestServer server([&](const auto&, auto& response, int) {
    response.set_chunked_content_provider("application/json",
                                          [&](size_t offset, httplib::DataSink& sink) {
                                            if (offset == 0) sink.write(full.data(), 20);
                                            return false;  // no terminating chunk
                                          });
  });
  FakeSleep sleeps;
  ModelConfig model = model_at(server);
  model.max_retries = 0;
  auto client = make_model_client(model, hooks_with(&sleeps));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kConnectionError) << error.what();
  }
}

TEST(HttpClient, InvalidJsonIsAnErrorWithTheFirstBytesAndNotRetried) {
  TestServer server([](const auto&, auto& response, int) {
    response.set_content(R"({"choices": [{"message": {"content": "unterminated)",
                         "application/json");
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kMalformedResponse);
    EXPECT_NE(std::string(error.what()).find("«{\"choices\""), std::string::npos) << error.what();
  }
  EXPECT_EQ(server.calls(), 1);
}

TEST(HttpClient, LengthStopMarksTruncated) {
  TestServer server([](const auto&, auto& response, int) {
    Json answer = openai_answer("partial");
    answer["choices"][0]["finish_reason"] = "length";
    reply_json(response, answer);
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  ChatResponse response = client->complete(ask());
  EXPECT_TRUE(response.truncated);
  EXPECT_EQ(response.finish_reason, "length");

  TestServer claude([](const auto&, auto& response, int) {
    Json answer = anthropic_answer("partial");
    answer["stop_reason"] = "max_tokens";
    reply_json(response, answer);
  });
  auto anthropic = make_model_client(model_at(claude, Provider::kAnthropic), hooks_with(nullptr));
  EXPECT_TRUE(anthropic->complete(ask()).truncated);
}

TEST(HttpClient, MissingUsageIsEstimated) {
  TestServer server([](const auto&, auto& response, int) {
    Json answer = openai_answer("sixteen chars!!!");
    answer.erase("usage");
    reply_json(response, answer);
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  ChatResponse response = client->complete(ask());
  EXPECT_TRUE(response.usage.estimated);
  EXPECT_EQ(response.usage.completion_tokens, 4);
}

TEST(HttpClient, UnauthorizedNamesTheVariableAndNeverTheKey) {
  TestServer server([](const auto& request, auto& response, int) {
    // OpenAI echoes the key it refused; the client must not pass it on.
    std::string key = request.get_header_value("Authorization").substr(7);
    reply_json(response,
               Json{{"error",
                     {{"message", "Incorrect API key provided: " + key},
                      {"type", "invalid_request_error"}}}},
               401);
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kUnauthorized);
    std::string message = error.what();
    EXPECT_NE(message.find("check the key in $TEST_KEY"), std::string::npos) << message;
    EXPECT_EQ(message.find(kKey), std::string::npos) << message;
  }
  EXPECT_EQ(server.calls(), 1);
}

TEST(HttpClient, NotFoundNamesModelAndUrl) {
  TestServer server([](const auto&, auto& response, int) {
    reply_json(response,
               Json{{"object", "error"},
                    {"message", "The model `served-model` does not exist."},
                    {"type", "NotFoundError"},
                    {"code", 404}},
               404);
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kNotFound);
    std::string message = error.what();
    EXPECT_NE(message.find("model 'served-model' not found at " + server.url()), std::string::npos)
        << message;
    EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
  }
  EXPECT_EQ(server.calls(), 1);
}

TEST(HttpClient, BadRequestIsNotRetried) {
  TestServer server([](const auto&, auto& response, int) {
    reply_json(response, Json{{"error", {{"message", "maximum context length is 4096"}}}}, 400);
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kBadRequest);
    EXPECT_NE(std::string(error.what()).find("maximum context length"), std::string::npos);
  }
  EXPECT_EQ(server.calls(), 1);
}

TEST(HttpClient, RedirectIsNotFollowedAndSaysWhere) {
  TestServer server([](const auto&, auto& response, int) {
    response.set_redirect("https://elsewhere.example/v1/chat/completions", 308);
  });
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kBadRequest);
    EXPECT_NE(std::string(error.what()).find("'https://elsewhere.example/v1/chat/completions'"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(server.calls(), 1);
}

TEST(HttpClient, BytesThatAreNotUtf8NeverThrowOutsideLlmError) {
  TestServer server([](const auto& request, auto& response, int) {
    // Sent as valid UTF-8: each stray byte as its private-use escape (common/utf8.h), 0xff as
    // U+10FFFF.
    EXPECT_NE(request.body.find("\xf4\x8f\xbf\xbf"), std::string::npos);
    response.status = 500;
    response.set_content(std::string(199, 'x') + "\xc3\xa9 and more", "text/plain");
  });
  ModelConfig model = model_at(server);
  model.max_retries = 0;
  auto client = make_model_client(model, hooks_with(nullptr));
  try {
    client->complete(ask("compiler said: \xff\xfe garbage"));
    FAIL();
  } catch (const LlmError& error) {
    std::string message = error.what();
    EXPECT_EQ(message.find("\xc3\xa9"), std::string::npos);  // not cut in half
    EXPECT_NE(message.find("xxx…»"), std::string::npos) << message;
  }
}

TEST(HttpClient, MissingKeyFailsBeforeAnyRequest) {
  TestServer server(
      [](const auto&, auto& response, int) { reply_json(response, openai_answer("x")); });
  auto client = make_model_client(model_at(server), hooks_with(nullptr, std::nullopt));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kUnauthorized);
    EXPECT_NE(std::string(error.what()).find("API key missing: set TEST_KEY"), std::string::npos);
  }
  EXPECT_EQ(server.calls(), 0);
}

TEST(HttpClient, NoServerIsAConnectionErrorAfterRetries) {
  std::string url;
  {
    TestServer gone([](const auto&, auto&, int) {});
    url = gone.url();
  }
  FakeSleep sleeps;
  ModelConfig model;
  model.name = "gone";
  model.base_url = url;
  model.model = "m";
  model.max_retries = 2;
  auto client = make_model_client(model, hooks_with(&sleeps));
  try {
    client->complete(ask());
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kConnectionError);
    EXPECT_NE(std::string(error.what()).find("cannot connect to " + url), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(sleeps.waits.size(), 2u);
}

TEST(HttpClient, ConcurrencyLimitIsRespected) {
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  TestServer server([&](const auto&, auto& response, int) {
    int now = ++in_flight;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    --in_flight;
    reply_json(response, openai_answer("ok"));
  });
  ModelConfig model = model_at(server);
  model.concurrency = 2;
  auto client = make_model_client(model, hooks_with(nullptr));
  std::vector<std::future<ChatResponse>> calls;
  for (int i = 0; i < 6; ++i) {
    calls.push_back(std::async(std::launch::async, [&] { return client->complete(ask()); }));
  }
  for (auto& call : calls) EXPECT_EQ(call.get().content, "ok");
  EXPECT_EQ(most.load(), 2);
  EXPECT_EQ(server.calls(), 6);
}

TEST(HttpClient, CancelEndsAHangingCallAndABackoff) {
  TestServer* self = nullptr;
  TestServer server([&](const auto& request, auto& response, int) {
    if (request.body.find("hang") != std::string::npos) {
      self->hang(10);
      reply_json(response, openai_answer("late"));
    } else {
      response.set_header("Retry-After", "30");
      reply_json(response, Json::object(), 429);
    }
  });
  self = &server;
  auto client = make_model_client(model_at(server), hooks_with(nullptr));
  for (const char* text : {"hang", "rate limited"}) {
    CancelToken cancel;
    auto start = std::chrono::steady_clock::now();
    auto call = std::async(std::launch::async, [&] { return client->complete(ask(text), cancel); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel.cancel();
    try {
      call.get();
      FAIL();
    } catch (const LlmError& error) {
      EXPECT_EQ(error.status(), CallStatus::kCancelled) << error.what();
    }
    EXPECT_LT(seconds_since(start), 1.5) << text;
  }
}

}  // namespace
}  // namespace accelopt::llm
