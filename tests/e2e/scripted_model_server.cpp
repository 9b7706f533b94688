#include "scripted_model_server.h"

#include <httplib.h>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

namespace accelopt::testing {
namespace {

std::string role_from_system(const std::string& system) {
  for (const char* role : {"planner", "executor", "fixer", "summarizer"}) {
    if (system.find(std::string("You are the ") + role) != std::string::npos) return role;
  }
  return "unknown";
}

// The text of a message's content: a string, or OpenAI's list of {"type": "text", "text": ...}.
std::string content_text(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const Json& part : content) {
      if (part.is_object() && part.contains("text")) text += part["text"].get<std::string>();
    }
  }
  return text;
}

Json completion(const std::string& content, const std::string& model, size_t prompt_chars) {
  int prompt_tokens = static_cast<int>(prompt_chars / 4 + 1);
  int completion_tokens = static_cast<int>(content.size() / 4 + 1);
  return Json{{"id", "chatcmpl-scripted"},
              {"object", "chat.completion"},
              {"created", 1700000000},
              {"model", model},
              {"choices",
               {{{"index", 0},
                 {"message", {{"role", "assistant"}, {"content", content}}},
                 {"finish_reason", "stop"}}}},
              {"usage",
               {{"prompt_tokens", prompt_tokens},
                {"completion_tokens", completion_tokens},
                {"total_tokens", prompt_tokens + completion_tokens}}}};
}

}  // namespace

struct ScriptedModelServer::Impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mutex;
  Responder responder;
  std::chrono::milliseconds delay{0};
  std::map<std::string, std::deque<std::string>> queues;
  std::vector<ScriptRule> rules;
  std::vector<ScriptedRequest> requests;
  std::map<std::string, int> counts;

  // The answer and its status for `request`; caller must hold mutex.
  std::pair<std::string, int> choose(const ScriptedRequest& request, int nth) {
    if (auto it = queues.find(request.role); it != queues.end() && !it->second.empty()) {
      std::string answer = std::move(it->second.front());
      it->second.pop_front();
      return {answer, 200};
    }
    for (ScriptRule& rule : rules) {
      if (rule.times == 0) continue;
      if (!rule.role.empty() && rule.role != request.role) continue;
      if (!rule.when_contains.empty() &&
          request.user.find(rule.when_contains) == std::string::npos) {
        continue;
      }
      if (rule.times > 0) --rule.times;
      return {rule.answer, rule.http_status};
    }
    return {default_answer(request, nth), 200};
  }

  static std::string default_answer(const ScriptedRequest& request, int nth) {
    std::string n = std::to_string(nth + 1);
    if (request.role == "planner") {
      static const std::regex many(R"(Propose ([0-9]+) distinct plans)");
      std::smatch match;
      if (std::regex_search(request.user, match, many)) {
        std::string answer;
        int count = std::stoi(match[1].str());
        for (int i = 1; i <= count; ++i) {
          std::string id = n + "." + std::to_string(i);
          answer += "## Plan " + std::to_string(i) + ": Scripted plan " + id +
                    "\nScripted idea number " + id + " for the kernel.\n\n";
        }
        return answer;
      }
      return plan_answer("Scripted plan " + n, "Scripted idea number " + n + " for the kernel.");
    }
    if (request.role == "executor") {
      return kernel_answer(code_after(request.user, "## The current kernel"));
    }
    if (request.role == "fixer") {
      return kernel_answer(code_after(request.user, "## The failed kernel"));
    }
    if (request.role == "summarizer") {
      return summary_answer("Scripted insight " + n, "A scripted lesson number " + n + ".",
                            "before();", "after();");
    }
    return "OK";
  }

  void handle(const httplib::Request& http_request, httplib::Response& response) {
    ScriptedRequest request;
    request.body = Json::parse(http_request.body, nullptr, false);
    if (request.body.is_discarded() || !request.body.contains("messages")) {
      response.status = 400;
      response.set_content(R"({"error": {"message": "scripted server: not a chat request"}})",
                           "application/json");
      return;
    }
    if (request.body.contains("system")) request.system = content_text(request.body["system"]);
    for (const Json& message : request.body["messages"]) {
      std::string role = message.value("role", "");
      if (role == "system") request.system += content_text(message["content"]);
      if (role == "user") request.user = content_text(message["content"]);
    }
    request.role = role_from_system(request.system);
    std::string model = request.body.value("model", "scripted");

    std::optional<std::string> custom;
    Responder custom_responder;
    std::chrono::milliseconds wait{0};
    {
      std::lock_guard lock(mutex);
      custom_responder = responder;
      wait = delay;
    }
    std::this_thread::sleep_for(wait);  // outside the lock: requests wait side by side
    if (custom_responder) custom = custom_responder(request);  // outside the lock: it may block

    std::lock_guard lock(mutex);
    int nth = counts[request.role]++;
    auto [answer, status] = custom ? std::pair{*custom, 200} : choose(request, nth);
    request.http_status = status;
    if (status != 200) {
      response.status = status;
      response.set_content(
          Json{{"error", {{"message", answer.empty() ? "scripted failure" : answer}}}}.dump(),
          "application/json");
    } else {
      request.answer = answer;
      response.set_content(
          completion(answer, model, request.system.size() + request.user.size()).dump(),
          "application/json");
    }
    requests.push_back(std::move(request));
  }
};

ScriptedModelServer::ScriptedModelServer() : ScriptedModelServer(0) {}

ScriptedModelServer::ScriptedModelServer(int port) : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  impl.server.Post(".*", [&impl](const httplib::Request& request, httplib::Response& response) {
    impl.handle(request, response);
  });
  if (port == 0) {
    impl.port = impl.server.bind_to_any_port("127.0.0.1");
  } else if (impl.server.bind_to_port("127.0.0.1", port)) {
    impl.port = port;
  } else {
    throw std::runtime_error("scripted model server: cannot listen on 127.0.0.1:" +
                             std::to_string(port));
  }
  impl.thread = std::thread([&impl] { impl.server.listen_after_bind(); });
  while (!impl.server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ScriptedModelServer::~ScriptedModelServer() {
  stop();
}

void ScriptedModelServer::stop() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string ScriptedModelServer::url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port);
}

std::string ScriptedModelServer::base_url() const {
  return url() + "/v1";
}

std::string ScriptedModelServer::config_toml(const std::string& name) const {
  return "[models." + name + "]\nbase_url = \"" + base_url() + "\"\nmodel = \"" + name +
         "-model\"\nmax_retries = 0\nconcurrency = 8\ntimeout_s = 60\n\n[roles]\nplanner = \"" +
         name + "\"\nexecutor = \"" + name + "\"\nfixer = \"" + name + "\"\nsummarizer = \"" +
         name + "\"\n";
}

ScriptedModelServer& ScriptedModelServer::on(ScriptRule rule) {
  std::lock_guard lock(impl_->mutex);
  impl_->rules.push_back(std::move(rule));
  return *this;
}

ScriptedModelServer& ScriptedModelServer::on(const std::string& role,
                                             const std::string& when_contains,
                                             const std::string& answer, int times) {
  return on(ScriptRule{role, when_contains, answer, times, 200});
}

ScriptedModelServer& ScriptedModelServer::queue(const std::string& role,
                                                const std::string& answer) {
  std::lock_guard lock(impl_->mutex);
  impl_->queues[role].push_back(answer);
  return *this;
}

void ScriptedModelServer::set_delay(std::chrono::milliseconds delay) {
  std::lock_guard lock(impl_->mutex);
  impl_->delay = delay;
}

void ScriptedModelServer::set_responder(Responder responder) {
  std::lock_guard lock(impl_->mutex);
  impl_->responder = std::move(responder);
}

std::vector<ScriptedRequest> ScriptedModelServer::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

std::vector<ScriptedRequest> ScriptedModelServer::requests(const std::string& role) const {
  std::vector<ScriptedRequest> out;
  for (ScriptedRequest& request : requests()) {
    if (request.role == role) out.push_back(std::move(request));
  }
  return out;
}

int ScriptedModelServer::count(const std::string& role) const {
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->counts.find(role);
  return it == impl_->counts.end() ? 0 : it->second;
}

std::string plan_answer(const std::string& title, const std::string& body) {
  return "## Plan: " + title + "\n" + body + "\n";
}

std::string kernel_answer(const std::string& source) {
  return "Here is the complete kernel.\n\n```cpp\n" + source +
         (source.ends_with("\n") ? "" : "\n") + "```\n\nIt follows the plan.\n";
}

std::string summary_answer(const std::string& title, const std::string& description,
                           const std::string& before, const std::string& after) {
  return "```json\n" +
         Json{{"title", title}, {"description", description}, {"before", before}, {"after", after}}
             .dump(2) +
         "\n```\n";
}

std::string no_optimization_answer() {
  return "NO OPTIMIZATION FOUND";
}

std::string code_after(const std::string& prompt, const std::string& heading) {
  size_t at = prompt.find(heading);
  if (at == std::string::npos) return {};
  size_t open = prompt.find("```cpp\n", at);
  if (open == std::string::npos) return {};
  open += 7;
  size_t close = prompt.find("\n```", open);
  if (close == std::string::npos) return {};
  return prompt.substr(open, close - open);
}

namespace axpy {

namespace {
const char* kPrototype =
    "extern \"C\" void kernel(const float* __restrict x, const float* __restrict y, "
    "float* __restrict out) {\n";
}

// Each element through a volatile, as in slower() but once: eight times lighter than slower(),
// three times lighter than passes_axpy's baseline, and never near the roofline, so the harness's
// physics check cannot refuse it however quiet the machine.
std::string faster() {
  return std::string("#include <cstdint>\n\n#include \"accelopt_task.h\"\n\n") + kPrototype +
         "  for (std::int64_t i = 0; i < N; ++i) {\n"
         "    volatile float twice = 2.0f * x[i];\n"
         "    out[i] = twice + y[i];\n"
         "  }\n}\n";
}

std::string slower() {
  return std::string("#include <cstdint>\n\n#include \"accelopt_task.h\"\n\n") + kPrototype +
         "  for (int pass = 0; pass < 8; ++pass) {\n"
         "    for (std::int64_t i = 0; i < N; ++i) {\n"
         "      volatile float twice = 2.0f * x[i];\n"
         "      out[i] = twice + y[i];\n"
         "    }\n  }\n}\n";
}

std::string broken() {
  return std::string("#include <cstdint>\n\n#include \"accelopt_task.h\"\n\n") + kPrototype +
         "  for (std::int64_t i = 0; i < N; ++i) {\n"
         "    volatile float twice = 2.0f * x[i];\n"
         "    out[i] = twice + y[i]\n"
         "  }\n}\n";
}

std::string repaired() {
  return faster();
}

std::string wrong() {
  return std::string("#include <cstdint>\n\n#include \"accelopt_task.h\"\n\n") + kPrototype +
         "  for (std::int64_t i = 0; i < N; ++i) out[i] = x[i] + y[i];\n}\n";
}

std::string hostile() {
  return std::string("#include <cstdint>\n#include <cstdio>\n\n#include \"accelopt_task.h\"\n\n") +
         kPrototype +
         "  if (std::FILE* file = std::fopen(\"accelopt-hostile.txt\", \"w\")) {\n"
         "    std::fputs(\"escaped\", file);\n    std::fclose(file);\n  }\n"
         "  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];\n}\n";
}

std::string spinning() {
  return std::string("#include <cstdint>\n\n#include \"accelopt_task.h\"\n\n") + kPrototype +
         "  volatile int spin = 1;\n  while (spin) {\n  }\n"
         "  for (std::int64_t i = 0; i < N; ++i) out[i] = 2.0f * x[i] + y[i];\n}\n";
}

}  // namespace axpy
}  // namespace accelopt::testing
