// A model server for tests: cpp-httplib on 127.0.0.1 at an ephemeral port, in a thread of its own.
// Each test scripts its answers with a handler; the server keeps what it received.
#pragma once

#include <httplib.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/json.h"

namespace accelopt::llm::testing {

struct Received {
  std::string path;
  std::string body;
  httplib::Headers headers;
};

class TestServer {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&, int call)>;

  explicit TestServer(Handler handler);
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int calls() const { return calls_.load(); }
  std::vector<Received> received() const;
  // Sleeps up to `seconds`, ending early when the server stops: for handlers that hang.
  void hang(double seconds) const;
  void stop();

 private:
  httplib::Server server_;
  Handler handler_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> calls_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<Received> received_;
};

// A chat completion as vLLM sends it.
Json openai_answer(const std::string& content, int prompt_tokens = 10, int completion_tokens = 5);
// A Messages answer as Anthropic sends it.
Json anthropic_answer(const std::string& text, int input_tokens = 10, int output_tokens = 5);

}  // namespace accelopt::llm::testing
