// A task whose baseline is a stub has no baseline yet. `accelopt task import` writes one (it
// compiles and writes zeros) with this marker line, so that `optimize` can tell it from a kernel a
// person wrote: a stub task's run starts from a naive kernel the executor writes (with a model
// configured), and `eval` and `bench` refuse it with the ways out.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace accelopt::task {

inline constexpr std::string_view kBaselineStubMarker = "// accelopt:baseline-stub";

// True when a line of `source` is the marker (leading and trailing blanks aside).
inline bool is_baseline_stub(std::string_view source) {
  size_t start = 0;
  while (start < source.size()) {
    size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(start, end - start);
    size_t first = line.find_first_not_of(" \t\r");
    size_t last = line.find_last_not_of(" \t\r");
    if (first != std::string_view::npos &&
        line.substr(first, last - first + 1) == kBaselineStubMarker) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// What a person reads where a stub baseline cannot be used: which file, and the two ways out.
inline std::string baseline_stub_message(const std::filesystem::path& baseline) {
  return baseline.string() + ": the task has no baseline yet (the file is marked \"" +
         std::string(kBaselineStubMarker) +
         "\", as the stub `accelopt task import` writes is): write the straightforward loops of "
         "the reference there (and remove the marker "
         "line), or configure a model (`accelopt optimize --config FILE` with [models], "
         "docs/llm.md): optimize then has the executor write a correct naive kernel to start "
         "from, and --save-baseline keeps it as the task's baseline";
}

}  // namespace accelopt::task
