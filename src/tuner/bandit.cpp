#include "tuner/bandit.h"

#include <algorithm>

namespace accelopt::tuner {

void ThompsonBandit::add_evidence(const std::string& arm, double successes, double failures) {
  Belief& belief = arms_[arm];
  belief.alpha += std::max(0.0, successes);
  belief.beta += std::max(0.0, failures);
}

double ThompsonBandit::sample(const std::string& arm) {
  const Belief& belief = arms_[arm];
  // Beta(a, b) = X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
  std::gamma_distribution<double> x_distribution(belief.alpha, 1.0);
  std::gamma_distribution<double> y_distribution(belief.beta, 1.0);
  double x = x_distribution(rng_);
  double y = y_distribution(rng_);
  return x + y > 0 ? x / (x + y) : 0.5;
}

double ThompsonBandit::mean(const std::string& arm) const {
  auto found = arms_.find(arm);
  if (found == arms_.end()) return 0.5;
  return found->second.alpha / (found->second.alpha + found->second.beta);
}

}  // namespace accelopt::tuner
