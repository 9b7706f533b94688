// accelopt-standin-evaluator, compiled: the shell script beside it, with next to no CPU time.
//
// An accelopt-evaluator/1 evaluator that runs no kernel. It sleeps --seconds (default 2) for each
// evaluation and answers PASSED with a per-call time fixed by each source's text: 0.5-1.5 ms from
// the SHA-256 of the source's JSON text (escapes as written), each pair within +-1 % of it. The
// script spends about 0.1 s of CPU an evaluation on its sed, awk and sha256sum; eight workers on a
// two-core machine finishing together then wait for the cores, and a measurement of the run and
// the queue measures this machine instead. This one spends a few milliseconds.
//
//   accelopt-standin-evaluator [--seconds 2] < request.json > reply.json
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include "common/hash.h"
#include "common/json.h"

namespace {

using accelopt::Json;

// The source's place in [0, 1): its SHA-256's first 8 hex digits as a fraction, as the script.
double fraction_of(const std::string& source) {
  std::string text = Json(source).dump();  // the JSON text the script hashes, quotes removed
  std::string hex = accelopt::sha256_hex(text.substr(1, text.size() - 2)).substr(0, 8);
  return static_cast<double>(std::stoul(hex, nullptr, 16)) / 4294967296.0;
}

// `pairs` per-call times of a source: its base within +-1 %, the jitter fixed by the source.
Json calls_of(const std::string& source, int pairs) {
  double place = fraction_of(source);
  double base = 1e-3 * (0.5 + place);
  std::mt19937 jitter(static_cast<uint32_t>(place * 2147483647.0));
  std::uniform_real_distribution<double> spread(-0.01, 0.01);
  Json list = Json::array();
  for (int index = 0; index < pairs; ++index) list.push_back(base * (1 + spread(jitter)));
  return list;
}

int answer(double seconds) {
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  Json request = Json::parse(text, nullptr, false);
  if (request.is_discarded() || !request.is_object() ||
      request.value("protocol", "") != "accelopt-evaluator/1") {
    std::cerr << "stand-in: the request is not accelopt-evaluator/1\n";
    return 2;
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  size_t seeds = request.contains("seeds") ? request["seeds"].size() : 0;
  Json reply = {
      {"protocol", "accelopt-evaluator/1"},
      {"status", "PASSED"},
      {"compile_seconds", 0},
      {"device", {{"name", fmt::format("stand-in (sleeps {} s, runs no kernel)", seconds)}}},
      {"correctness",
       {{"seeds_checked", seeds},
        {"rel_l2_error", 0},
        {"max_abs_error", 0},
        {"max_rel_error", 0}}}};
  const Json* timing = request.contains("timing") ? &request["timing"] : nullptr;
  if (timing != nullptr && timing->contains("min_pairs")) {
    int pairs = (*timing)["min_pairs"].get<int>();
    std::string kernel = request.value("/kernel/source"_json_pointer, std::string());
    std::string anchor = request.value("/anchor/source"_json_pointer, std::string());
    reply["timing"] = {{"candidate_seconds", calls_of(kernel, pairs)},
                       {"anchor_seconds", calls_of(anchor, pairs)},
                       {"candidate_calls_per_turn", 1},
                       {"anchor_calls_per_turn", 1},
                       {"kernel_seconds", 0}};
  }
  std::cout << reply.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2;
  for (int index = 1; index < argc; ++index) {
    std::string flag = argv[index];
    if (flag == "--seconds" && index + 1 < argc) {
      seconds = std::stod(argv[++index]);
    } else {
      std::cerr << "stand-in: unknown argument '" << flag
                << "' (usage: accelopt-standin-evaluator [--seconds S])\n";
      return 2;
    }
  }
  try {
    return answer(seconds);
  } catch (const std::exception& error) {
    std::cerr << "stand-in: " << error.what() << "\n";
    return 2;
  }
}
