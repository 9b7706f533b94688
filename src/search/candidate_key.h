// Where a candidate sits in a run, and the one place that spells it. Resume depends on this text:
// each candidate is stored under its key, each agent answer under a key derived from it, and each
// agent call is seeded from it, so a resumed run finds what an earlier process already did. The
// format is therefore fixed: changing it makes the stored runs of a workspace unresumable.
//
//   i0/baseline                 the baseline (iteration 0)
//   i0/start                    the user's own kernel the run starts from (optimize --kernel)
//   i3/b1/p4/k0                 iteration 3, beam slot 1, plan 4, implementation 0
//   i3/b1/p4/k0/f2              ... its second repair by the fixer
//   i3/refine/c17/p0/k0         a tuner move on candidate 17, which entered the beam (hybrid)
//
// Answers: "<slot>/plans", "<plan>/impl", "<repair>/fix", "i3/summary/<slow>-<fast>".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace accelopt::search {

class CandidateKey {
 public:
  static CandidateKey baseline();
  static CandidateKey start_kernel();
  // The planner's place for beam slot `slot` of `iteration`.
  static CandidateKey beam_slot(int iteration, int slot);
  // The planner's place for the hybrid refinement of `candidate` in `iteration`.
  static CandidateKey refinement(int iteration, int64_t candidate);

  CandidateKey plan(int index) const;            // needs a slot or refinement
  CandidateKey implementation(int index) const;  // needs a plan
  CandidateKey repair(int round) const;          // needs an implementation; round from 1

  int iteration() const { return iteration_; }
  int repair_round() const { return repair_; }  // 0: not a repair
  bool is_refinement() const { return refined_.has_value(); }

  std::string str() const;    // "i3/b1/p4/k0/f1"
  std::string place() const;  // the key without its iteration: "b1/p4/k0/f1"
  // Parses what str() writes; nullopt for anything else.
  static std::optional<CandidateKey> parse(std::string_view text);

  // The store keys of the agents' answers made at this place.
  std::string plans_answer() const;            // "i3/b1/plans"
  std::string implementations_answer() const;  // "i3/b1/p4/impl"
  std::string repair_answer() const;           // "i3/b1/p4/k0/f1/fix"

  // The seed of the agent call made at this place: planner, executor, and the fixer's round
  // (this key the implementation repaired). The same run seed and place always give the same seed.
  uint64_t plans_seed(uint64_t run_seed) const;
  uint64_t implementations_seed(uint64_t run_seed) const;
  uint64_t repair_seed(uint64_t run_seed, int round) const;

  friend bool operator==(const CandidateKey&, const CandidateKey&) = default;

 private:
  int iteration_ = 0;
  bool baseline_ = false, start_ = false;
  std::optional<int> slot_;
  std::optional<int64_t> refined_;
  std::optional<int> plan_, implementation_;
  int repair_ = 0;
};

// The store key of the summarizer's answer on the rewrite slow → fast made in `iteration`.
std::string summary_answer_key(int iteration, int64_t slow, int64_t fast);

}  // namespace accelopt::search
