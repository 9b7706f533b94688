// Agent answers kept in the store, so a resumed run reads what it was told instead of asking again.
// An answer is stored under its key (candidate_key.h) as JSON:
//   plans            [{"text", "author", "detail"}, ...]
//   implementations  [{"source", "parse_error", "author"}, ...]
//   a repair         {"source", "parse_error", "author"} or null (the fixer gave up)
//   a summary        an insight (memory.h's insight_to_json) or null (nothing to keep)
// A call that throws stores nothing: it is asked again.
#pragma once

#include <cstdint>
#include <string>

#include "common/json.h"
#include "roles/roles.h"
#include "store/store.h"

namespace accelopt::search {

Json plan_to_json(const roles::Plan& plan);
roles::Plan plan_from_json(const Json& json);
Json implementation_to_json(const roles::Implementation& implementation);
roles::Implementation implementation_from_json(const Json& json);

class AnswerCache {
 public:
  AnswerCache(store::Store& store, int64_t run_id) : store_(store), run_id_(run_id) {}

  // The answer stored under `key`, or compute()'s, stored first. (thread-safe: the store is)
  template <typename Compute>
  Json get_or_ask(const std::string& key, Compute compute) {
    if (auto stored = store_.answer(run_id_, key)) return *stored;
    Json answer = compute();
    store_.put_answer(run_id_, key, answer);
    return answer;
  }
  std::optional<Json> stored(const std::string& key) const { return store_.answer(run_id_, key); }

 private:
  store::Store& store_;
  int64_t run_id_;
};

}  // namespace accelopt::search
