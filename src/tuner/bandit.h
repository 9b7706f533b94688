// The tuner's bandit: Thompson sampling over move types ("TILE_N:up", "TILE_N:down"). Each arm is a
// Beta(1 + successes, 1 + failures) belief that a move of that type makes the kernel faster; the
// successes and failures come from memory entries (weighted by how related their task is), so a
// warmed memory steers the first proposals. Sampling is reproducible from the seed.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

namespace accelopt::tuner {

class ThompsonBandit {
 public:
  explicit ThompsonBandit(uint64_t seed) : rng_(seed) {}

  void add_evidence(const std::string& arm, double successes, double failures);
  // A draw from the arm's Beta belief, in [0, 1].
  double sample(const std::string& arm);
  double mean(const std::string& arm) const;

 private:
  struct Belief {
    double alpha = 1, beta = 1;
  };
  std::map<std::string, Belief> arms_;
  std::mt19937_64 rng_;
};

}  // namespace accelopt::tuner
