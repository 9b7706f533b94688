// The wire formats, on the bytes real servers send.
#include "llm/protocol.h"

#include <gtest/gtest.h>

namespace accelopt::llm {
namespace {

ModelConfig openai_model(std::string base_url = "http://localhost:8000/v1") {
  ModelConfig model;
  model.name = "local";
  model.provider = Provider::kOpenAi;
  model.base_url = std::move(base_url);
  model.model = "qwen";
  return model;
}

ModelConfig anthropic_model() {
  ModelConfig model;
  model.name = "claude";
  model.provider = Provider::kAnthropic;
  model.base_url = "https://api.anthropic.com";
  model.model = "claude-sonnet";
  return model;
}

ChatRequest hello() {
  ChatRequest request;
  request.messages = {{"system", "Be brief."}, {"user", "Say hello"}};
  return request;
}

TEST(Protocol, OpenAiUrlAcceptsHostApiRootOrEndpoint) {
  ChatRequest request = hello();
  EXPECT_EQ(build_wire_request(openai_model("http://h:8000"), request).url,
            "http://h:8000/v1/chat/completions");
  EXPECT_EQ(build_wire_request(openai_model("http://h:8000/v1/"), request).url,
            "http://h:8000/v1/chat/completions");
  EXPECT_EQ(build_wire_request(openai_model("https://openrouter.ai/api/v1"), request).url,
            "https://openrouter.ai/api/v1/chat/completions");
  EXPECT_EQ(build_wire_request(openai_model("http://h/v1/chat/completions"), request).url,
            "http://h/v1/chat/completions");
  ModelConfig claude = anthropic_model();
  EXPECT_EQ(build_wire_request(claude, request).url, "https://api.anthropic.com/v1/messages");
  claude.base_url = "https://proxy.example/anthropic/v1";
  EXPECT_EQ(build_wire_request(claude, request).url, "https://proxy.example/anthropic/v1/messages");
}

TEST(Protocol, OpenAiBodyCarriesOptionsAndExtraBody) {
  ChatRequest request = hello();
  request.options.temperature = 0.5;
  request.options.max_tokens = 100;
  request.options.seed = 7;
  request.options.reasoning_effort = "high";
  request.options.stop = {"```"};
  request.options.extra_body =
      Json{{"top_k", 20}, {"chat_template_kwargs", {{"enable_thinking", false}}}};
  Json body = build_wire_request(openai_model(), request).body;
  EXPECT_EQ(body["model"], "qwen");
  EXPECT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["temperature"], 0.5);
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_EQ(body["seed"], 7);
  EXPECT_EQ(body["reasoning_effort"], "high");
  EXPECT_EQ(body["stop"][0], "```");
  EXPECT_EQ(body["top_k"], 20);
  EXPECT_EQ(body["chat_template_kwargs"]["enable_thinking"], false);
  EXPECT_EQ(body["stream"], false);
  EXPECT_FALSE(body.contains("top_p"));

  Json openai = build_wire_request(openai_model("https://api.openai.com/v1"), request).body;
  EXPECT_EQ(openai["max_completion_tokens"], 100);
  EXPECT_FALSE(openai.contains("max_tokens"));
}

TEST(Protocol, AnthropicBodyHasTopLevelSystemAndThinking) {
  ChatRequest request = hello();
  request.options.thinking_budget = 2000;
  request.options.stop = {"END"};
  WireRequest wire = build_wire_request(anthropic_model(), request);
  EXPECT_EQ(wire.body["system"], "Be brief.");
  ASSERT_EQ(wire.body["messages"].size(), 1u);
  EXPECT_EQ(wire.body["messages"][0]["role"], "user");
  EXPECT_EQ(wire.body["thinking"]["budget_tokens"], 2000);
  EXPECT_GT(wire.body["max_tokens"].get<int>(), 2000);
  EXPECT_EQ(wire.body["stop_sequences"][0], "END");
  bool has_version = false;
  for (const auto& header : wire.headers) has_version |= header.starts_with("anthropic-version: ");
  EXPECT_TRUE(has_version);
  EXPECT_EQ(auth_header(anthropic_model(), "k"), "x-api-key: k");
  EXPECT_EQ(auth_header(openai_model(), "k"), "Authorization: Bearer k");
}

TEST(Protocol, ReadsVllmReasoningContentAndUsageDetails) {
  std::string body = R"({"id":"x","model":"gpt-oss","choices":[{"index":0,"message":{"role":
    "assistant","content":"42","reasoning_content":"think think"},"finish_reason":"stop"}],
    "usage":{"prompt_tokens":100,"completion_tokens":30,"completion_tokens_details":
    {"reasoning_tokens":20},"prompt_tokens_details":{"cached_tokens":64}}})";
  ChatResponse response = parse_wire_response(openai_model(), hello(), body);
  EXPECT_EQ(response.content, "42");
  EXPECT_EQ(response.reasoning, "think think");
  EXPECT_EQ(response.finish_reason, "stop");
  EXPECT_FALSE(response.truncated);
  EXPECT_EQ(response.usage.prompt_tokens, 100);
  EXPECT_EQ(response.usage.completion_tokens, 30);
  EXPECT_EQ(response.usage.reasoning_tokens, 20);
  EXPECT_EQ(response.usage.cached_tokens, 64);
  EXPECT_FALSE(response.usage.estimated);
  EXPECT_EQ(response.model, "gpt-oss");
}

TEST(Protocol, ReadsOpenRouterReasoningNullContentAndLengthStop) {
  std::string body = R"({"choices":[{"message":{"role":"assistant","content":null,
    "reasoning":"long thoughts"},"finish_reason":"length"}],
    "usage":{"prompt_tokens":5,"completion_tokens":50}})";
  ChatResponse response = parse_wire_response(openai_model(), hello(), body);
  EXPECT_EQ(response.content, "");
  EXPECT_EQ(response.reasoning, "long thoughts");
  EXPECT_TRUE(response.truncated);
}

TEST(Protocol, ReadsContentPartsAndThinkTags) {
  std::string parts = R"({"choices":[{"message":{"content":[{"type":"text","text":"a"},
    {"type":"text","text":"b"}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,
    "completion_tokens":1}})";
  EXPECT_EQ(parse_wire_response(openai_model(), hello(), parts).content, "ab");
  std::string think = R"({"choices":[{"message":{"content":"<think>\nhmm\n</think>\n\nanswer"},
    "finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}})";
  ChatResponse response = parse_wire_response(openai_model(), hello(), think);
  EXPECT_EQ(response.content, "answer");
  EXPECT_EQ(response.reasoning, "\nhmm\n");
}

TEST(Protocol, MissingUsageIsEstimatedAndMarked) {
  std::string body =
      R"({"choices":[{"message":{"content":"twelve chars"},"finish_reason":"stop"}]})";
  ChatResponse response = parse_wire_response(openai_model(), hello(), body);
  EXPECT_TRUE(response.usage.estimated);
  EXPECT_EQ(response.usage.completion_tokens, 3);
  EXPECT_GT(response.usage.prompt_tokens, 0);
}

TEST(Protocol, ReadsAnthropicBlocksStopReasonAndCacheUsage) {
  std::string body = R"({"type":"message","model":"claude-x","content":[
    {"type":"thinking","thinking":"let me see","signature":"abc"},
    {"type":"redacted_thinking","data":"xyz"},{"type":"text","text":"Hello"},
    {"type":"text","text":" there"}],"stop_reason":"max_tokens","usage":{"input_tokens":10,
    "cache_read_input_tokens":90,"cache_creation_input_tokens":0,"output_tokens":7}})";
  ChatResponse response = parse_wire_response(anthropic_model(), hello(), body);
  EXPECT_EQ(response.content, "Hello there");
  EXPECT_EQ(response.reasoning, "let me see\n[redacted thinking]");
  EXPECT_TRUE(response.truncated);
  EXPECT_EQ(response.finish_reason, "max_tokens");
  EXPECT_EQ(response.usage.prompt_tokens, 100);
  EXPECT_EQ(response.usage.cached_tokens, 90);
  EXPECT_EQ(response.usage.completion_tokens, 7);
}

// Some servers stream even when asked not to; the events make the same answer.
TEST(Protocol, ReadsAnEventStreamSentInsteadOfOneAnswer) {
  std::string openai =
      "data: {\"model\":\"m\",\"choices\":[{\"delta\":{\"role\":\"assistant\","
      "\"reasoning_content\":\"hm\"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"length\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n"
      "data: [DONE]\n\n";
  ChatResponse response = parse_wire_response(openai_model(), hello(), openai);
  EXPECT_EQ(response.content, "Hello");
  EXPECT_EQ(response.reasoning, "hm");
  EXPECT_TRUE(response.truncated);
  EXPECT_EQ(response.usage.completion_tokens, 2);
  EXPECT_FALSE(response.usage.estimated);

  std::string anthropic =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\","
      "\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"},\"usage\":{\"output_tokens\":4}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  response = parse_wire_response(anthropic_model(), hello(), anthropic);
  EXPECT_EQ(response.content, "Hi");
  EXPECT_EQ(response.finish_reason, "end_turn");
  EXPECT_EQ(response.usage.prompt_tokens, 9);
  EXPECT_EQ(response.usage.completion_tokens, 4);

  EXPECT_THROW(parse_wire_response(openai_model(), hello(), "data: {\"choices\": [{\"del"),
               LlmError);
}

// vLLM sends each thought under both `reasoning_content` and `reasoning`: it is one thought, and
// its tokens are counted once.
TEST(Protocol, StreamedReasoningUnderBothNamesIsKeptOnce) {
  std::string both =
      "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"think \","
      "\"reasoning\":\"think \"}}]}\n\n"
      "data: "
      "{\"choices\":[{\"delta\":{\"reasoning_content\":\"hard\",\"reasoning\":\"hard\"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"reasoning\":\"!\"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n";
  ChatResponse response = parse_wire_response(openai_model(), hello(), both);
  EXPECT_EQ(response.reasoning, "think hard!");
  EXPECT_EQ(response.content, "ok");
  ASSERT_TRUE(response.usage.estimated);  // no usage sent: estimated from the text, once
  EXPECT_EQ(response.usage.reasoning_tokens, estimate_tokens("think hard!"));
}

TEST(Protocol, MalformedAnswersAreErrorsWithTheFirstBytes) {
  for (std::string body :
       {std::string(R"({"choices":[{"message":{"content":"cut)"), std::string("not json at all"),
        std::string("[1,2]"), std::string(R"({"choices":[]})"), std::string(""),
        std::string(R"({"choices":[{"message":{"content":5}}]})")}) {
    try {
      ChatResponse response = parse_wire_response(openai_model(), hello(), body);
      // A content of the wrong type reads as empty rather than failing.
      EXPECT_EQ(response.content, "") << body;
    } catch (const LlmError& error) {
      EXPECT_EQ(error.status(), CallStatus::kMalformedResponse) << body;
      EXPECT_NE(std::string(error.what()).find(excerpt(body)), std::string::npos) << error.what();
    }
  }
  try {
    parse_wire_response(openai_model(), hello(), "<html><body>Ollama is running</body></html>");
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_NE(std::string(error.what()).find("is base_url the API root?"), std::string::npos);
  }
}

TEST(Protocol, ErrorObjectInsideA200IsAnError) {
  std::string body = R"({"error":{"message":"Provider returned error","code":502}})";
  try {
    parse_wire_response(openai_model(), hello(), body);
    FAIL();
  } catch (const LlmError& error) {
    EXPECT_EQ(error.status(), CallStatus::kServerError);
    EXPECT_NE(std::string(error.what()).find("Provider returned error"), std::string::npos);
  }
}

TEST(Protocol, ServerErrorTextFindsTheServersWords) {
  EXPECT_EQ(server_error_text(R"({"error":{"message":"model x not found","type":"x"}})"),
            "model x not found");
  EXPECT_EQ(server_error_text(R"({"object":"error","message":"The model `m` does not exist."})"),
            "The model `m` does not exist.");
  EXPECT_EQ(server_error_text(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(server_error_text(R"({"error":"model 'llama' not found, try pulling it first"})"),
            "model 'llama' not found, try pulling it first");
  EXPECT_EQ(server_error_text("plain\ntext"), "«plain text»");
}

}  // namespace
}  // namespace accelopt::llm
