#include "llm/test_server.h"

#include <chrono>

namespace accelopt::llm::testing {

TestServer::TestServer(Handler handler) : handler_(std::move(handler)) {
  server_.set_keep_alive_max_count(1);
  server_.Post(".*", [this](const httplib::Request& request, httplib::Response& response) {
    int call = calls_.fetch_add(1);
    {
      std::lock_guard lock(mutex_);
      received_.push_back({request.path, request.body, request.headers});
    }
    handler_(request, response, call);
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TestServer::~TestServer() {
  stop();
}

void TestServer::stop() {
  stopping_ = true;
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

std::vector<Received> TestServer::received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

void TestServer::hang(double seconds) const {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!stopping_ && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Json openai_answer(const std::string& content, int prompt_tokens, int completion_tokens) {
  return Json{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"created", 1700000000},
      {"model", "served-model"},
      {"choices",
       {{{"index", 0},
         {"message", {{"role", "assistant"}, {"content", content}, {"tool_calls", Json::array()}}},
         {"logprobs", nullptr},
         {"finish_reason", "stop"}}}},
      {"usage",
       {{"prompt_tokens", prompt_tokens},
        {"completion_tokens", completion_tokens},
        {"total_tokens", prompt_tokens + completion_tokens},
        {"prompt_tokens_details", nullptr}}}};
}

Json anthropic_answer(const std::string& text, int input_tokens, int output_tokens) {
  return Json{{"id", "msg_01"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-test"},
              {"content", {{{"type", "text"}, {"text", text}}}},
              {"stop_reason", "end_turn"},
              {"stop_sequence", nullptr},
              {"usage",
               {{"input_tokens", input_tokens},
                {"cache_creation_input_tokens", 0},
                {"cache_read_input_tokens", 0},
                {"output_tokens", output_tokens}}}};
}

}  // namespace accelopt::llm::testing
