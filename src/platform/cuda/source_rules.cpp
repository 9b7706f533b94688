#include "platform/cuda/source_rules.h"

#include <array>
#include <regex>
#include <sstream>
#include <string_view>

namespace accelopt::platform::cuda {
namespace {

constexpr std::string_view kAllowedHeaders[] = {"accelopt_task.h",
                                                "cuda_runtime.h",
                                                "cuda_fp16.h",
                                                "cuda_bf16.h",
                                                "mma.h",
                                                "cooperative_groups.h",
                                                "cooperative_groups/reduce.h",
                                                "cooperative_groups/memcpy_async.h",
                                                "cuda/pipeline",
                                                "cuda/barrier",
                                                "cuda/std/cstdint",
                                                "cub/cub.cuh",
                                                "cuda_pipeline.h",
                                                "algorithm",
                                                "array",
                                                "cassert",
                                                "cfloat",
                                                "climits",
                                                "cmath",
                                                "cstddef",
                                                "cstdint",
                                                "cstdio",
                                                "cstdlib",
                                                "cstring",
                                                "limits",
                                                "numeric",
                                                "type_traits",
                                                "utility",
                                                "math.h",
                                                "stdint.h",
                                                "float.h",
                                                "stddef.h",
                                                "tuple",
                                                "functional",
                                                "iterator",
                                                "vector",
                                                "memory",
                                                "span",
                                                "bit",
                                                "initializer_list",
                                                "atomic",
                                                "cuda/atomic",
                                                "cuda/std/atomic",
                                                "crt/math_functions.h",
                                                "vector_types.h",
                                                "device_launch_parameters.h",
                                                "cuda/std/limits",
                                                "cuda/std/type_traits"};

}  // namespace

std::optional<std::string> check_cuda_source(const std::string& source,
                                             const std::string& entry_point) {
  static const std::regex include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  static const std::regex other_include(R"(^\s*#\s*(include_next|import)\b)");
  std::istringstream lines(source);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::smatch match;
    if (std::regex_search(line, match, include)) {
      std::string header = match[1];
      bool allowed = false;
      for (std::string_view name : kAllowedHeaders) allowed = allowed || header == name;
      if (!allowed) {
        return "line " + std::to_string(number) + ": #include <" + header +
               "> is not allowed (the C++ standard library, the CUDA kernel headers and "
               "\"accelopt_task.h\" are)";
      }
    } else if (std::regex_search(line, other_include)) {
      return "line " + std::to_string(number) + ": only plain #include is allowed";
    }
  }
  std::regex definition("extern\\s+\"C\"\\s+(__host__\\s+)?void\\s+" + entry_point + "\\s*\\(");
  if (!std::regex_search(source, definition)) {
    return "the source does not define extern \"C\" void " + entry_point +
           "(...) with the prototype accelopt_task.h declares";
  }
  return std::nullopt;
}

}  // namespace accelopt::platform::cuda
