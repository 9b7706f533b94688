// The scripted model server as a program, so that a study (studies/models-cheap-vs-strong.toml)
// runs offline end to end with the LLM agents: every role gets the server's default answers
// (scripted_model_server.h): distinct plans, the current kernel unchanged, insights.
//
//   build/tests/e2e/scripted-model-server [--port 8765] [--delay-ms 0]     (Ctrl-C ends it)
//
// --delay-ms: every answer comes that long after its request (a hosted model's latency).
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "scripted_model_server.h"

int main(int argc, char** argv) {
  int port = 8765;
  int delay_ms = 0;
  for (int index = 1; index < argc; ++index) {
    std::string argument = argv[index];
    if (argument == "--port" && index + 1 < argc) {
      port = std::atoi(argv[++index]);
    } else if (argument == "--delay-ms" && index + 1 < argc) {
      delay_ms = std::atoi(argv[++index]);
    } else {
      std::cerr << "usage: scripted-model-server [--port PORT] [--delay-ms MS]\n";
      return 2;
    }
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // the server's thread inherits the mask
  try {
    accelopt::testing::ScriptedModelServer server(port);
    server.set_delay(std::chrono::milliseconds(delay_ms));
    std::cout << "scripted model server at " << server.base_url() << " (Ctrl-C ends it)"
              << std::endl;
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
  } catch (const std::exception& error) {
    std::cerr << "scripted-model-server: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
