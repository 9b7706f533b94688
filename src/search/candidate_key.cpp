#include "search/candidate_key.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "common/error.h"

namespace accelopt::search {
namespace {

uint64_t splitmix(uint64_t value) {
  value += 0x9E3779B97F4A7C15ull;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
  return value ^ (value >> 31);
}

uint64_t call_seed(uint64_t seed, int iteration, const std::string& place) {
  uint64_t value = splitmix(seed ^ splitmix(static_cast<uint64_t>(iteration)));
  for (char c : place) value = splitmix(value ^ static_cast<unsigned char>(c));
  return value;
}

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

// "p4" with prefix "p" → 4; nullopt for anything but the prefix and a non-negative number.
template <typename Number>
std::optional<Number> numbered(std::string_view part, std::string_view prefix) {
  if (part.substr(0, prefix.size()) != prefix || part.size() == prefix.size()) return std::nullopt;
  Number value{};
  const char* first = part.data() + prefix.size();
  const char* last = part.data() + part.size();
  auto [end, error] = std::from_chars(first, last, value);
  if (error != std::errc() || end != last || value < 0) return std::nullopt;
  return value;
}

}  // namespace

CandidateKey CandidateKey::baseline() {
  CandidateKey key;
  key.baseline_ = true;
  return key;
}

CandidateKey CandidateKey::start_kernel() {
  CandidateKey key;
  key.start_ = true;
  return key;
}

CandidateKey CandidateKey::beam_slot(int iteration, int slot) {
  CandidateKey key;
  key.iteration_ = iteration;
  key.slot_ = slot;
  return key;
}

CandidateKey CandidateKey::refinement(int iteration, int64_t candidate) {
  CandidateKey key;
  key.iteration_ = iteration;
  key.refined_ = candidate;
  return key;
}

CandidateKey CandidateKey::plan(int index) const {
  if (baseline_ || start_ || plan_)
    throw InternalError("candidate key " + str() + ": no place for a plan");
  CandidateKey key = *this;
  key.plan_ = index;
  return key;
}

CandidateKey CandidateKey::implementation(int index) const {
  if (!plan_ || implementation_) {
    throw InternalError("candidate key " + str() + ": no place for an implementation");
  }
  CandidateKey key = *this;
  key.implementation_ = index;
  return key;
}

CandidateKey CandidateKey::repair(int round) const {
  if (!implementation_ || round < 1) {
    throw InternalError(fmt::format("candidate key {}: no place for repair {}", str(), round));
  }
  CandidateKey key = *this;
  key.repair_ = round;
  return key;
}

std::string CandidateKey::place() const {
  if (baseline_) return "baseline";
  if (start_) return "start";
  std::string text = slot_ ? fmt::format("b{}", *slot_) : fmt::format("refine/c{}", *refined_);
  if (plan_) text += fmt::format("/p{}", *plan_);
  if (implementation_) text += fmt::format("/k{}", *implementation_);
  if (repair_ > 0) text += fmt::format("/f{}", repair_);
  return text;
}

std::string CandidateKey::str() const {
  return fmt::format("i{}/{}", iteration_, place());
}

std::optional<CandidateKey> CandidateKey::parse(std::string_view text) {
  std::vector<std::string_view> parts = split(text);
  auto iteration = numbered<int>(parts[0], "i");
  if (!iteration || parts.size() < 2) return std::nullopt;
  if (parts.size() == 2 && (parts[1] == "baseline" || parts[1] == "start")) {
    if (*iteration != 0) return std::nullopt;
    return parts[1] == "baseline" ? baseline() : start_kernel();
  }
  CandidateKey key;
  size_t next = 2;
  if (auto slot = numbered<int>(parts[1], "b")) {
    key = beam_slot(*iteration, *slot);
  } else if (parts[1] == "refine" && parts.size() > 2) {
    auto candidate = numbered<int64_t>(parts[2], "c");
    if (!candidate) return std::nullopt;
    key = refinement(*iteration, *candidate);
    next = 3;
  } else {
    return std::nullopt;
  }
  if (next < parts.size()) {
    auto index = numbered<int>(parts[next++], "p");
    if (!index) return std::nullopt;
    key = key.plan(*index);
  }
  if (next < parts.size()) {
    auto index = numbered<int>(parts[next++], "k");
    if (!index) return std::nullopt;
    key = key.implementation(*index);
  }
  if (next < parts.size()) {
    auto round = numbered<int>(parts[next++], "f");
    if (!round || *round < 1) return std::nullopt;
    key = key.repair(*round);
  }
  if (next != parts.size()) return std::nullopt;
  return key;
}

std::string CandidateKey::plans_answer() const {
  return str() + "/plans";
}
std::string CandidateKey::implementations_answer() const {
  return str() + "/impl";
}
std::string CandidateKey::repair_answer() const {
  return str() + "/fix";
}

uint64_t CandidateKey::plans_seed(uint64_t run_seed) const {
  return call_seed(run_seed, iteration_, place());
}

uint64_t CandidateKey::implementations_seed(uint64_t run_seed) const {
  return call_seed(run_seed, iteration_, place() + "/impl");
}

uint64_t CandidateKey::repair_seed(uint64_t run_seed, int round) const {
  return call_seed(run_seed, iteration_, fmt::format("{}/fix{}", str(), round));
}

std::string summary_answer_key(int iteration, int64_t slow, int64_t fast) {
  return fmt::format("i{}/summary/{}-{}", iteration, slow, fast);
}

}  // namespace accelopt::search
