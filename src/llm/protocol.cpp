#include "llm/protocol.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/error.h"

namespace accelopt::llm {
namespace {

std::string strip_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// True when the URL names only a host ("http://host:8000"), no API path.
bool is_bare_host(const std::string& url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  return url.find('/', start) == std::string::npos;
}

// base_url may be the host ("http://localhost:11434"), the API root ("…/v1", "…/api/v1",
// "…/v1beta/openai") or the endpoint itself; all three are accepted.
std::string endpoint(const std::string& base_url, std::string_view path) {
  std::string url = strip_trailing_slashes(base_url);
  if (url.ends_with(path)) return url;
  if (is_bare_host(url)) return url + "/v1" + std::string(path);
  return url + std::string(path);
}

std::string default_max_tokens_field(const ModelConfig& model) {
  if (!model.max_tokens_field.empty()) return model.max_tokens_field;
  // OpenAI's reasoning models refuse max_tokens; every other server knows max_tokens.
  return model.base_url.find("api.openai.com") != std::string::npos ? "max_completion_tokens"
                                                                    : "max_tokens";
}

void merge_extra(Json& body, const Json& extra) {
  if (!extra.is_object()) return;
  for (const auto& [key, value] : extra.items()) {
    if (value.is_object() && body.contains(key) && body[key].is_object()) {
      merge_extra(body[key], value);
    } else {
      body[key] = value;
    }
  }
}

[[noreturn]] void malformed(const ModelConfig& model, std::string_view body, std::string_view why) {
  std::string hint;
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && body[first] == '<') {
    hint = "; this looks like a web page: is base_url the API root?";
  }
  throw LlmError(CallStatus::kMalformedResponse,
                 fmt::format("malformed answer from {} (model {}, {} bytes): {}{}; first bytes: {}",
                             model.base_url, model.name, body.size(), why, hint, excerpt(body)));
}

int64_t read_count(const Json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto found = object.find(key);
  if (found == object.end()) return 0;
  if (found->is_number_integer() || found->is_number_unsigned()) {
    return std::max<int64_t>(0, found->get<int64_t>());
  }
  if (found->is_number_float())
    return std::max<int64_t>(0, static_cast<int64_t>(found->get<double>()));
  if (found->is_string()) {
    try {
      return std::max<int64_t>(0, std::stoll(found->get<std::string>()));
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

std::string string_or_empty(const Json& object, const char* key) {
  if (!object.is_object()) return {};
  auto found = object.find(key);
  if (found == object.end() || !found->is_string()) return {};
  return found->get<std::string>();
}

// "length" (OpenAI), "max_tokens" (Anthropic, some proxies), "MAX_TOKENS" (Gemini's OpenAI layer).
bool is_length_stop(std::string reason) {
  for (char& c : reason) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return reason == "length" || reason == "max_tokens" || reason == "model_length" ||
         reason == "model_context_window_exceeded";
}

// Content as a string, null, or an array of parts ({"type":"text","text":…} or plain strings).
std::string read_content(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_string()) {
        text += part.get<std::string>();
      } else if (part.is_object()) {
        std::string type = string_or_empty(part, "type");
        if (type.empty() || type == "text" || type == "output_text")
          text += string_or_empty(part, "text");
      }
    }
  }
  return text;
}

// A server run without a reasoning parser leaves the model's "<think>…</think>" in the content; a
// chat template that opens <think> in the prompt leaves only the closing tag.
void split_think_tags(ChatResponse& response) {
  const std::string_view open = "<think>";
  const std::string_view close = "</think>";
  size_t end = response.content.find(close);
  if (end == std::string::npos) return;
  size_t start = response.content.find_first_not_of(" \t\r\n");
  std::string_view content = response.content;
  std::string reasoning;
  if (content.substr(start).starts_with(open)) {
    reasoning = std::string(content.substr(start + open.size(), end - start - open.size()));
  } else if (content.find(open) == std::string::npos) {
    reasoning = std::string(content.substr(0, end));
  } else {
    return;
  }
  std::string rest(content.substr(end + close.size()));
  size_t keep = rest.find_first_not_of(" \t\r\n");
  response.reasoning = reasoning;
  response.content = keep == std::string::npos ? "" : rest.substr(keep);
}

ChatResponse parse_openai(const ModelConfig& model, const Json& json, std::string_view body) {
  auto choices = json.find("choices");
  if (choices == json.end() || !choices->is_array() || choices->empty()) {
    malformed(model, body, "no choices in the answer");
  }
  const Json& choice = (*choices)[0];
  if (!choice.is_object()) malformed(model, body, "choices[0] is not an object");
  ChatResponse response;
  auto message = choice.find("message");
  if (message != choice.end() && message->is_object()) {
    if (message->contains("content")) response.content = read_content((*message)["content"]);
    response.reasoning = string_or_empty(*message, "reasoning_content");
    if (response.reasoning.empty()) response.reasoning = string_or_empty(*message, "reasoning");
    if (response.reasoning.empty() && message->contains("reasoning_details") &&
        (*message)["reasoning_details"].is_array()) {
      for (const auto& detail : (*message)["reasoning_details"]) {
        std::string text = string_or_empty(detail, "text");
        if (text.empty()) text = string_or_empty(detail, "summary");
        response.reasoning += text;
      }
    }
    if (response.reasoning.empty()) split_think_tags(response);
  } else if (choice.contains("text")) {  // a completions-style answer
    response.content = read_content(choice["text"]);
  } else {
    malformed(model, body, "choices[0] has no message");
  }
  response.finish_reason = string_or_empty(choice, "finish_reason");
  response.truncated = is_length_stop(response.finish_reason);
  response.model = string_or_empty(json, "model");

  auto usage = json.find("usage");
  if (usage != json.end() && usage->is_object() &&
      (usage->contains("prompt_tokens") || usage->contains("completion_tokens"))) {
    response.usage.prompt_tokens = read_count(*usage, "prompt_tokens");
    response.usage.completion_tokens = read_count(*usage, "completion_tokens");
    if (usage->contains("completion_tokens_details")) {
      response.usage.reasoning_tokens =
          read_count((*usage)["completion_tokens_details"], "reasoning_tokens");
    }
    if (usage->contains("reasoning_tokens")) {
      response.usage.reasoning_tokens = read_count(*usage, "reasoning_tokens");
    }
    if (usage->contains("prompt_tokens_details")) {
      response.usage.cached_tokens = read_count((*usage)["prompt_tokens_details"], "cached_tokens");
    }
    if (usage->contains("cached_tokens")) {
      response.usage.cached_tokens = read_count(*usage, "cached_tokens");
    }
    response.usage.estimated = false;
  } else {
    response.usage.estimated = true;
  }
  return response;
}

ChatResponse parse_anthropic(const ModelConfig& model, const Json& json, std::string_view body) {
  auto content = json.find("content");
  if (content == json.end() || !content->is_array()) {
    malformed(model, body, "no content blocks in the answer");
  }
  ChatResponse response;
  for (const auto& block : *content) {
    std::string type = string_or_empty(block, "type");
    if (type == "text") {
      response.content += string_or_empty(block, "text");
    } else if (type == "thinking") {
      if (!response.reasoning.empty()) response.reasoning += "\n";
      response.reasoning += string_or_empty(block, "thinking");
    } else if (type == "redacted_thinking") {
      if (!response.reasoning.empty()) response.reasoning += "\n";
      response.reasoning += "[redacted thinking]";
    }
  }
  response.finish_reason = string_or_empty(json, "stop_reason");
  response.truncated = is_length_stop(response.finish_reason);
  response.model = string_or_empty(json, "model");
  auto usage = json.find("usage");
  if (usage != json.end() && usage->is_object() &&
      (usage->contains("input_tokens") || usage->contains("output_tokens"))) {
    int64_t cache_read = read_count(*usage, "cache_read_input_tokens");
    response.usage.prompt_tokens = read_count(*usage, "input_tokens") + cache_read +
                                   read_count(*usage, "cache_creation_input_tokens");
    response.usage.cached_tokens = cache_read;
    response.usage.completion_tokens = read_count(*usage, "output_tokens");
  } else {
    response.usage.estimated = true;
  }
  return response;
}

// An error object inside a 2xx answer (OpenRouter does this; so does a streaming Anthropic error).
void throw_embedded_error(const ModelConfig& model, const Json& json, std::string_view body) {
  const Json& error = json["error"];
  std::string text = server_error_text(body);
  int64_t code = read_count(error, "code");
  std::string type = string_or_empty(error, "type");
  CallStatus status = CallStatus::kServerError;
  if (code == 429 || type == "rate_limit_error") status = CallStatus::kRateLimited;
  if ((code >= 400 && code < 500 && code != 408 && code != 409 && code != 429) ||
      type == "invalid_request_error") {
    status = CallStatus::kBadRequest;
  }
  throw LlmError(status, fmt::format("{} (model {}) answered with an error: {}", model.base_url,
                                     model.name, text));
}

// Some servers and proxies stream server-sent events even when asked not to. The events are
// folded into the one answer a non-streaming call would have had. Returns a discarded value when
// the body is not an event stream.
Json fold_event_stream(std::string_view body) {
  size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos ||
      !(body.substr(first).starts_with("data:") || body.substr(first).starts_with("event:"))) {
    return Json(Json::value_t::discarded);
  }
  Json openai{{"choices", {{{"message", {{"content", ""}}}, {"finish_reason", nullptr}}}}};
  Json anthropic{{"content", Json::array()}, {"stop_reason", nullptr}, {"usage", Json::object()}};
  std::string reasoning;
  bool is_anthropic = false;
  bool any = false;
  size_t begin = 0;
  while (begin < body.size()) {
    size_t end = body.find('\n', begin);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(begin, end - begin);
    begin = end + 1;
    if (!line.starts_with("data:")) continue;
    line.remove_prefix(5);
    while (!line.empty() && (line.front() == ' ')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == '\r')) line.remove_suffix(1);
    if (line == "[DONE]") continue;
    Json event = Json::parse(line, nullptr, false);
    if (event.is_discarded() || !event.is_object()) return Json(Json::value_t::discarded);
    any = true;
    if (event.contains("error")) return event;
    std::string type = string_or_empty(event, "type");
    if (type.starts_with("message") || type.starts_with("content_block") || type == "ping") {
      is_anthropic = true;
      if (type == "message_start" && event.contains("message")) {
        const Json& message = event["message"];
        if (message.contains("model")) anthropic["model"] = message["model"];
        if (message.contains("usage") && message["usage"].is_object()) {
          anthropic["usage"].update(message["usage"]);
        }
      } else if (type == "content_block_start" && event.contains("content_block")) {
        anthropic["content"].push_back(event["content_block"]);
      } else if (type == "content_block_delta" && event.contains("delta") &&
                 !anthropic["content"].empty()) {
        const Json& delta = event["delta"];
        Json& block = anthropic["content"].back();
        std::string kind = string_or_empty(delta, "type");
        if (kind == "text_delta") {
          block["text"] = string_or_empty(block, "text") + string_or_empty(delta, "text");
        } else if (kind == "thinking_delta") {
          block["thinking"] =
              string_or_empty(block, "thinking") + string_or_empty(delta, "thinking");
        }
      } else if (type == "message_delta") {
        if (event.contains("delta")) {
          std::string stop = string_or_empty(event["delta"], "stop_reason");
          if (!stop.empty()) anthropic["stop_reason"] = stop;
        }
        if (event.contains("usage") && event["usage"].is_object()) {
          anthropic["usage"].update(event["usage"]);
        }
      }
      continue;
    }
    if (event.contains("model")) openai["model"] = event["model"];
    if (event.contains("usage") && event["usage"].is_object()) openai["usage"] = event["usage"];
    if (!event.contains("choices") || !event["choices"].is_array() || event["choices"].empty()) {
      continue;
    }
    const Json& choice = event["choices"][0];
    Json& message = openai["choices"][0]["message"];
    if (choice.contains("delta") && choice["delta"].is_object()) {
      const Json& delta = choice["delta"];
      message["content"] =
          message["content"].get<std::string>() + string_or_empty(delta, "content");
      // Some servers (vLLM with a reasoning parser) send the same text under both names.
      std::string thought = string_or_empty(delta, "reasoning_content");
      reasoning += thought.empty() ? string_or_empty(delta, "reasoning") : thought;
    }
    std::string finish = string_or_empty(choice, "finish_reason");
    if (!finish.empty()) openai["choices"][0]["finish_reason"] = finish;
  }
  if (!any) return Json(Json::value_t::discarded);
  if (is_anthropic) {
    if (anthropic["usage"].empty()) anthropic.erase("usage");
    return anthropic;
  }
  if (!reasoning.empty()) openai["choices"][0]["message"]["reasoning_content"] = reasoning;
  return openai;
}

}  // namespace

std::string dump_json(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string excerpt(std::string_view body, size_t limit) {
  std::string text;
  size_t end = std::min(limit, body.size());
  // Never end inside a multi-byte UTF-8 character.
  while (end < body.size() && end > 0 && (static_cast<unsigned char>(body[end]) & 0xC0) == 0x80) {
    --end;
  }
  for (char c : body.substr(0, end)) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      text += ' ';
    } else if (byte < 0x20 || byte == 0x7f) {
      text += fmt::format("\\x{:02x}", byte);
    } else {
      text += c;
    }
  }
  if (body.empty()) return "(empty)";
  return "«" + text + (body.size() > end ? "…»" : "»");
}

std::string server_error_text(std::string_view body) {
  Json json = Json::parse(body, nullptr, false);
  if (!json.is_discarded() && json.is_object()) {
    if (json.contains("error")) {
      const Json& error = json["error"];
      if (error.is_string()) return error.get<std::string>();
      std::string message = string_or_empty(error, "message");
      if (!message.empty()) return message;
    }
    std::string message = string_or_empty(json, "message");
    if (!message.empty()) return message;
    if (json.contains("detail")) {
      const Json& detail = json["detail"];
      return detail.is_string() ? detail.get<std::string>() : detail.dump();
    }
  }
  return excerpt(body);
}

int64_t estimate_tokens(std::string_view text) {
  return static_cast<int64_t>((text.size() + 3) / 4);
}

int64_t estimate_prompt_tokens(const ChatRequest& request) {
  int64_t tokens = 0;
  for (const auto& message : request.messages) tokens += estimate_tokens(message.content) + 4;
  return tokens;
}

Usage estimate_usage(const ChatRequest& request, const ChatResponse& response) {
  Usage usage;
  usage.prompt_tokens = estimate_prompt_tokens(request);
  usage.reasoning_tokens = estimate_tokens(response.reasoning);
  usage.completion_tokens = estimate_tokens(response.content) + usage.reasoning_tokens;
  usage.estimated = true;
  return usage;
}

WireRequest build_wire_request(const ModelConfig& model, const ChatRequest& request) {
  const ChatOptions& options = request.options;
  WireRequest wire;
  wire.headers.push_back("Content-Type: application/json");
  wire.headers.push_back("Accept: application/json");
  Json& body = wire.body;
  body["model"] = model.model;
  if (model.provider == Provider::kAnthropic) {
    wire.url = endpoint(model.base_url, "/messages");
    wire.headers.push_back("anthropic-version: " + model.anthropic_version);
    std::string system;
    Json messages = Json::array();
    for (const auto& message : request.messages) {
      if (message.role == "system") {
        if (!system.empty()) system += "\n\n";
        system += message.content;
      } else {
        messages.push_back({{"role", message.role}, {"content", message.content}});
      }
    }
    if (!system.empty()) body["system"] = system;
    body["messages"] = messages;
    // Anthropic requires max_tokens, and it must exceed the thinking budget.
    int64_t max_tokens = options.max_tokens.value_or(
        options.thinking_budget ? *options.thinking_budget + 4096 : 4096);
    body["max_tokens"] = max_tokens;
    if (options.temperature) body["temperature"] = *options.temperature;
    if (options.top_p) body["top_p"] = *options.top_p;
    if (!options.stop.empty()) body["stop_sequences"] = options.stop;
    if (options.thinking_budget) {
      body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *options.thinking_budget}};
    }
  } else {
    wire.url = endpoint(model.base_url, "/chat/completions");
    Json messages = Json::array();
    for (const auto& message : request.messages) {
      messages.push_back({{"role", message.role}, {"content", message.content}});
    }
    body["messages"] = messages;
    body["stream"] = false;
    if (options.temperature) body["temperature"] = *options.temperature;
    if (options.top_p) body["top_p"] = *options.top_p;
    if (options.max_tokens) body[default_max_tokens_field(model)] = *options.max_tokens;
    if (options.seed) body["seed"] = *options.seed;
    if (options.reasoning_effort) body["reasoning_effort"] = *options.reasoning_effort;
    if (!options.stop.empty()) body["stop"] = options.stop;
  }
  merge_extra(body, options.extra_body);
  return wire;
}

std::string auth_header(const ModelConfig& model, const std::string& api_key) {
  if (model.provider == Provider::kAnthropic) return "x-api-key: " + api_key;
  return "Authorization: Bearer " + api_key;
}

ChatResponse parse_wire_response(const ModelConfig& model, const ChatRequest& request,
                                 std::string_view body) {
  Json json = Json::parse(body, nullptr, false);
  if (json.is_discarded()) json = fold_event_stream(body);
  if (json.is_discarded()) malformed(model, body, "not valid JSON (cut short?)");
  if (!json.is_object()) malformed(model, body, "not a JSON object");
  if (json.contains("error") && !json["error"].is_null() && !json.contains("choices") &&
      !json.contains("content")) {
    throw_embedded_error(model, json, body);
  }
  ChatResponse response;
  try {
    response = model.provider == Provider::kAnthropic ? parse_anthropic(model, json, body)
                                                      : parse_openai(model, json, body);
  } catch (const Json::exception& error) {
    malformed(model, body, error.what());
  }
  if (response.usage.estimated) response.usage = estimate_usage(request, response);
  return response;
}

}  // namespace accelopt::llm
