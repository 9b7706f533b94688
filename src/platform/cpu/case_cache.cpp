#include "platform/cpu/case_cache.h"

#include <algorithm>
#include <set>

namespace accelopt::platform::cpu {

namespace {

// The bytes a case holds: its inputs and its answers, each array of inputs once however many cases
// share it (`counted`: those counted so far).
uint64_t case_bytes(const ReferenceCase& reference_case, std::set<const void*>& counted) {
  uint64_t bytes = 0;
  for (const task::TensorValues& input : reference_case.inputs) {
    if (counted.insert(&input.bytes()).second) bytes += input.bytes().size();
  }
  for (const std::vector<float>& output : reference_case.outputs) {
    bytes += output.size() * sizeof(float);
  }
  return bytes;
}

}  // namespace

uint64_t CaseCache::entry_bytes(const Entry& entry) {
  uint64_t bytes = 0;
  std::set<const void*> counted;
  if (entry.constants) {
    for (const task::TensorValues& input : *entry.constants) {
      if (counted.insert(&input.bytes()).second) bytes += input.bytes().size();
    }
  }
  for (const SharedCase& reference_case : entry.cases) {
    bytes += case_bytes(*reference_case, counted);
  }
  if (entry.pool) {
    for (const ReferenceCase& pool_case : *entry.pool) bytes += case_bytes(pool_case, counted);
  }
  return bytes;
}

std::optional<CaseCache::Kept> CaseCache::cases(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(key);
  if (found == entries_.end() || found->second.cases.empty()) return std::nullopt;
  Entry& entry = touch(key);
  Kept kept{entry.cases, entry.next_renewal};
  entry.next_renewal = (entry.next_renewal + 1) % entry.cases.size();
  return kept;
}

void CaseCache::keep_cases(const std::string& key, const std::vector<SharedCase>& cases) {
  std::lock_guard lock(mutex_);
  Entry& entry = touch(key);
  entry.cases = cases;
  entry.next_renewal = 0;
  make_room();
}

void CaseCache::renewed(const std::string& key, size_t index, SharedCase fresh) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(key);
  if (found == entries_.end() || index >= found->second.cases.size()) return;  // dropped since
  found->second.cases[index] = std::move(fresh);
}

SharedPool CaseCache::pool(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(key);
  if (found == entries_.end() || !found->second.pool) return nullptr;
  return touch(key).pool;
}

void CaseCache::keep_pool(const std::string& key, SharedPool pool) {
  std::lock_guard lock(mutex_);
  touch(key).pool = std::move(pool);
  make_room();
}

SharedConstants CaseCache::constants(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(key);
  if (found == entries_.end() || !found->second.constants) return nullptr;
  return touch(key).constants;
}

void CaseCache::keep_constants(const std::string& key, SharedConstants constants) {
  std::lock_guard lock(mutex_);
  touch(key).constants = std::move(constants);
  make_room();
}

uint64_t CaseCache::bytes() const {
  std::lock_guard lock(mutex_);
  uint64_t bytes = 0;
  for (const auto& [key, entry] : entries_) bytes += entry_bytes(entry);
  return bytes;
}

CaseCache::Entry& CaseCache::touch(const std::string& key) {
  Entry& entry = entries_[key];
  entry.last_use = ++uses_;
  return entry;
}

void CaseCache::make_room() {
  // What no longer fits goes, the entry used longest ago first; an entry larger than the whole
  // capacity is never kept.
  uint64_t total = 0;
  for (const auto& [key, entry] : entries_) total += entry_bytes(entry);
  while (total > capacity_bytes_ && !entries_.empty()) {
    auto oldest = std::min_element(
        entries_.begin(), entries_.end(),
        [](const auto& a, const auto& b) { return a.second.last_use < b.second.last_use; });
    total -= entry_bytes(oldest->second);
    entries_.erase(oldest);
  }
}

}  // namespace accelopt::platform::cpu
