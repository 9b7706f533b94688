#include "platform/cuda/source_rules.h"

#include <cctype>
#include <regex>
#include <set>
#include <vector>

#include "kernel/source_text.h"
#include "task/abi.h"

namespace accelopt::platform::cuda {
namespace {

const std::set<std::string>& allowed_headers() {
  static const std::set<std::string> headers = {
      // CUDA runtime and device libraries that need no linking
      "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_pipeline.h", "mma.h", "vector_types.h",
      "device_launch_parameters.h", "crt/math_functions.h", "cooperative_groups.h",
      "cooperative_groups/reduce.h", "cooperative_groups/memcpy_async.h", "cub/cub.cuh",
      "cuda/pipeline", "cuda/barrier", "cuda/atomic", "cuda/std/atomic", "cuda/std/cstdint",
      "cuda/std/limits", "cuda/std/type_traits",
      // C++ standard library
      "algorithm", "array", "atomic", "bit", "cassert", "cfloat", "climits", "cmath", "cstddef",
      "cstdint", "cstdio", "cstdlib", "cstring", "functional", "initializer_list", "iterator",
      "limits", "memory", "numeric", "span", "tuple", "type_traits", "utility", "vector",
      // C standard library
      "float.h", "math.h", "stddef.h", "stdint.h"};
  return headers;
}

// Attributes that may stand between `extern "C"` and `void` in the entry point's definition.
const std::set<std::string>& entry_point_attributes() {
  static const std::set<std::string> attributes = {"__host__"};
  return attributes;
}

std::optional<std::string> check_directive(const kernel::Directive& directive) {
  std::string where = "line " + std::to_string(directive.line) + ": ";
  const std::string& name = directive.name;
  if (name == "include_next" || name == "import" || name == "embed" || name == "line" ||
      (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])))) {
    return where + "#" + name + " is not allowed in a kernel; only plain #include is";
  }
  static const std::regex file_pragma(R"(^(GCC|clang)\s+(system_header|dependency))");
  if (name == "pragma" && std::regex_search(directive.rest, file_pragma)) {
    return where + "this #pragma is not allowed in a kernel";
  }
  if (name != "include") return std::nullopt;
  static const std::regex header_pattern(R"re(^(<([^<>]+)>|"([^"]+)")$)re");
  std::smatch header;
  if (!std::regex_match(directive.rest, header, header_pattern)) {
    return where + "#include must name a header directly (<name> or \"" +
           std::string(task::kKernelHeaderName) + "\"), not through a macro";
  }
  std::string header_name = header[2].matched ? header[2].str() : header[3].str();
  if (is_allowed_header(header_name)) return std::nullopt;
  return where + "#include " + directive.rest +
         " is not allowed (the C++ standard library, the CUDA kernel headers and \"" +
         task::kKernelHeaderName + "\" are)";
}

// extern "C" [__host__] void <entry_point> (
bool defines_entry_point(const std::vector<std::string>& tokens, const std::string& entry_point) {
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i] != "extern" || tokens[i + 1] != "\"C\"") continue;
    size_t next = i + 2;
    while (next < tokens.size() && entry_point_attributes().count(tokens[next])) ++next;
    if (next + 2 < tokens.size() && tokens[next] == "void" && tokens[next + 1] == entry_point &&
        tokens[next + 2] == "(") {
      return true;
    }
  }
  return false;
}

}  // namespace

bool is_allowed_header(const std::string& name) {
  return allowed_headers().count(name) > 0 || name == task::kKernelHeaderName;
}

std::optional<std::string> check_cuda_source(const std::string& source,
                                             const std::string& entry_point) {
  if (source.size() > 512 * 1024) return "the source is larger than 512 KiB";
  for (const kernel::Directive& directive : kernel::find_directives(source)) {
    if (auto rejection = check_directive(directive)) return rejection;
  }
  if (!defines_entry_point(kernel::code_tokens(source), entry_point)) {
    return "the source does not define extern \"C\" void " + entry_point +
           "(...) with the prototype " + task::kKernelHeaderName + " declares";
  }
  return std::nullopt;
}

}  // namespace accelopt::platform::cuda
