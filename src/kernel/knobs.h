// Knobs: the tunable constants a kernel declares, one line each, in the form docs/knobs.md fixes:
//   constexpr int TILE_N = 256;  // knob: 64 128 256 512 1024
// Reading matches that form line by line; anything else (static constexpr, a lower-case name, an
// expression) is not a knob. Editing replaces only the current value on the knob's line.
#pragma once

#include <string>
#include <vector>

namespace accelopt::kernel {

struct Knob {
  std::string name;
  int value = 0;
  std::vector<int> allowed;  // as listed
  int line = 0;              // 1-based

  // Index of `value` in `allowed`; -1 when it is not listed.
  int index() const;
};

// The knobs of `source` in file order. A repeated name keeps its first declaration.
std::vector<Knob> parse_knobs(const std::string& source);

// `source` with knob `name` set to `value`. Throws UserError when there is no such knob or `value`
// is not one of its allowed values.
std::string set_knob(const std::string& source, const std::string& name, int value);

}  // namespace accelopt::kernel
