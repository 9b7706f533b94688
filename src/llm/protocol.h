// The two wire protocols, as pure functions: the URL, headers and JSON body of a request, and the
// reading of an answer. Separate from the HTTP client so that each quirk of a real server can be
// tested on its own bytes.
//
// OpenAI chat completions (vLLM, SGLang, llama.cpp server, Ollama, OpenAI, OpenRouter):
//   reasoning in message.reasoning_content (vLLM, DeepSeek), message.reasoning (OpenRouter,
//   Ollama), message.reasoning_details (OpenRouter) or a leading <think>…</think> in the content
//   (servers run without a reasoning parser); content as a string, null, or an array of parts;
//   usage.completion_tokens_details.reasoning_tokens, usage.prompt_tokens_details.cached_tokens.
// Anthropic Messages: content blocks text, thinking, redacted_thinking; stop_reason max_tokens;
//   usage.input_tokens excludes cache_read_input_tokens and cache_creation_input_tokens, so the
//   prompt count here is their sum.
// A server that sends no usage gets an estimate of characters / 4, marked estimated. A server that
// streams server-sent events although asked not to has its events folded into one answer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llm/client.h"
#include "llm/config.h"

namespace accelopt::llm {

struct WireRequest {
  std::string url;
  std::vector<std::string> headers;  // without the API key
  Json body;
};

// `request.options` are the effective ones (defaults already merged).
WireRequest build_wire_request(const ModelConfig& model, const ChatRequest& request);
// The header that carries `api_key`, e.g. "Authorization: Bearer …".
std::string auth_header(const ModelConfig& model, const std::string& api_key);

// Reads a 2xx answer. Throws LlmError: kMalformedResponse (with the first bytes of `body`), or
// kServerError / kRateLimited when the server put an error object in a 2xx answer.
ChatResponse parse_wire_response(const ModelConfig& model, const ChatRequest& request,
                                 std::string_view body);

// The server's own words from an error answer (error.message, message, detail...), else the
// first bytes of the body.
std::string server_error_text(std::string_view body);

// JSON text of `value`; bytes that are not UTF-8 (a compiler's garbage in a prompt, a cut
// multi-byte character) become U+FFFD instead of throwing.
std::string dump_json(const Json& value, int indent = -1);

// The first `limit` bytes of `body`, printable, for error messages.
std::string excerpt(std::string_view body, size_t limit = 200);

Usage estimate_usage(const ChatRequest& request, const ChatResponse& response);
int64_t estimate_tokens(std::string_view text);
int64_t estimate_prompt_tokens(const ChatRequest& request);

}  // namespace accelopt::llm
