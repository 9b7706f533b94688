#include "platform/cpu/runner_turns.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <tuple>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "common/error.h"
#include "platform/cpu/inputs.h"
#include "platform/cpu/machine.h"

namespace accelopt::platform::cpu {
namespace {

Status outcome_status(CallOutcome outcome) {
  if (outcome == CallOutcome::kMachineBusy) return Status::kMachineBusy;
  return outcome == CallOutcome::kTimedOut ? Status::kTimeout : Status::kRuntimeError;
}

// SplitMix64: the next draw of `state`.
uint64_t next_draw(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// True with probability `p`, from getrandom(2): nobody can know before.
bool secret_chance(double p) {
  return static_cast<double>(secret_seed() >> 11) * 0x1p-53 < p;
}

// Moves `count` values towards `center` by `factor`, sixteen at a time: a loop of a fixed count,
// which the compiler vectorizes at -O2 (a float32 mix copied first and moved so ran 1.4x the
// speed of one converted value by value).
void shrink_towards(float* values, size_t count, float center, float factor) {
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    for (size_t k = 0; k < 16; ++k) values[i + k] = center + (values[i + k] - center) * factor;
  }
  for (; i < count; ++i) values[i] = center + (values[i] - center) * factor;
}

// Copies `bytes` bytes to `to` around the caches: streaming stores, which neither read the lines
// they fill nor leave them cached (a read of them after takes what one after clflush takes, on
// the Zen 5 the harness was measured on), and no read for ownership either. The few bytes before
// the first 16-byte boundary and after the last go the ordinary way, and their lines are flushed.
// Elsewhere a plain copy. The caller fences (finish_stores_around_caches) before another process
// reads.
void copy_around_caches(unsigned char* to, const unsigned char* from, size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  constexpr size_t kStore = sizeof(__m128i);
  size_t head = std::min(bytes, (kStore - reinterpret_cast<uintptr_t>(to) % kStore) % kStore);
  std::memcpy(to, from, head);
  size_t at = head;
  for (; at + kStore <= bytes; at += kStore) {
    __m128i value = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + at));
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + at), value);
  }
  std::memcpy(to + at, from + at, bytes - at);
  if (head > 0) _mm_clflush(to);
  if (at < bytes) _mm_clflush(to + bytes - 1);
#else
  std::memcpy(to, from, bytes);
#endif
}

// shrink_towards from `from` into `to` around the caches, in one pass: the same arithmetic, four
// values at a time, stored as copy_around_caches stores (benchmarks/load_floor: a mix of adamw's
// 89.7 MB of inputs 10.2 ms so against 15.8 ms staged, shrunk and copied). `to` holds whole floats.
void shrink_around_caches(float* to, const float* from, size_t count, float center, float factor) {
#if defined(__x86_64__) || defined(__i386__)
  constexpr size_t kStore = sizeof(__m128) / sizeof(float);
  size_t misaligned = reinterpret_cast<uintptr_t>(to) % sizeof(__m128) / sizeof(float);
  size_t head = std::min(count, (kStore - misaligned) % kStore);
  for (size_t i = 0; i < head; ++i) to[i] = center + (from[i] - center) * factor;
  const __m128 centers = _mm_set1_ps(center), factors = _mm_set1_ps(factor);
  size_t at = head;
  for (; at + kStore <= count; at += kStore) {
    __m128 moved = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(from + at), centers), factors);
    _mm_stream_ps(to + at, _mm_add_ps(centers, moved));
  }
  for (size_t i = at; i < count; ++i) to[i] = center + (from[i] - center) * factor;
  if (head > 0) _mm_clflush(to);
  if (at < count) _mm_clflush(to + count - 1);
#else
  std::copy_n(from, count, to);
  shrink_towards(to, count, center, factor);
#endif
}

void finish_stores_around_caches() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_mfence();
#endif
}

}  // namespace

uint64_t last_level_cache_bytes() {
  uint64_t largest = 0;
  for (const CacheLevel& level : read_caches("/sys/devices/system/cpu")) {
    if (level.type != "Instruction") {
      largest = std::max<uint64_t>(largest, static_cast<uint64_t>(level.size_kib) * 1024);
    }
  }
  return largest;
}

void evict_from_caches(const void* data, size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  constexpr size_t kLine = 64;  // the cache line of every x86-64 CPU
  const auto* first = static_cast<const char*>(data);
  for (size_t at = 0; at < bytes; at += kLine) _mm_clflush(first + at);
  if (bytes > 0) _mm_clflush(first + bytes - 1);  // the last line, where `data` is not aligned
  _mm_mfence();
#else
  (void)data;
  (void)bytes;
#endif
}

uint64_t default_in_place_bytes() {
  uint64_t cache = last_level_cache_bytes();
  return cache > 0 ? 2 * cache : uint64_t{64} << 20;
}

std::chrono::milliseconds turn_deadline(int calls, std::optional<double> seconds_per_call,
                                        std::chrono::milliseconds call_timeout) {
  std::chrono::milliseconds most = call_timeout * std::max(calls, 1);
  if (!seconds_per_call) return most;
  auto expected = std::chrono::duration<double>(kTurnDeadlineFactor * calls * *seconds_per_call);
  auto generous = std::chrono::ceil<std::chrono::milliseconds>(expected);
  return std::clamp(generous, call_timeout, most);
}

MixCenters mix_centers(const task::Task& task) {
  MixCenters centers;
  for (const task::TensorSpec& spec : task.inputs) {
    const task::InputDistribution& d = spec.distribution;
    switch (d.kind) {
      case task::Distribution::kConstant:
      case task::Distribution::kInteger:  // copied as they are: a shrunk index is not an index
      case task::Distribution::kOffsets:
        centers.emplace_back(std::nullopt);
        break;
      case task::Distribution::kUniform:
        centers.emplace_back(d.low);
        break;
      case task::Distribution::kNormal:
        centers.emplace_back(d.mean);
        break;
      case task::Distribution::kAbsNormal:
        centers.emplace_back(0.0);
        break;
    }
  }
  return centers;
}

std::vector<double> mix_steps(const task::Task& task) {
  std::vector<double> steps;
  for (const task::TensorSpec& spec : task.inputs) {
    switch (spec.dtype) {
      case task::DType::kBFloat16:
        steps.push_back(0x1p-8);
        break;
      case task::DType::kFloat16:
        steps.push_back(0x1p-11);
        break;
      case task::DType::kFloat8E4M3:  // a 3-bit mantissa: shrinks of 3 to 25 %, most not lost
        steps.push_back(0x1p-5);
        break;
      default:
        steps.push_back(0x1p-22);
    }
  }
  return steps;
}

std::vector<int> joint_inputs(const task::Task& task) {
  std::vector<int> group(task.inputs.size(), -1);
  auto index_of = [&](const std::string& name) {
    for (size_t i = 0; i < task.inputs.size(); ++i) {
      if (task.inputs[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  for (const task::InputSet& set : task.input_sets) {
    if (set.inputs.size() < 2) continue;
    // The set's inputs join one group, merging the groups they were in.
    int into = -1;
    for (const auto& [name, distribution] : set.inputs) {
      int i = index_of(name);
      if (i < 0) continue;
      if (into < 0) into = group[static_cast<size_t>(i)] >= 0 ? group[static_cast<size_t>(i)] : i;
      int from = group[static_cast<size_t>(i)];
      for (int& g : group) {
        if (from >= 0 && g == from) g = into;
      }
      group[static_cast<size_t>(i)] = into;
    }
  }
  return group;
}

std::vector<bool> whole_inputs(const task::Task& task, const task::Workload* workload) {
  std::vector<bool> whole;
  for (const task::TensorSpec& spec : task.inputs) {
    bool data = workload != nullptr && workload->file_inputs.count(spec.name) > 0;
    bool constrained = false;
    for (const task::Constraint& constraint : task.constraints) {
      for (const task::ElementRead& read : constraint.reads) {
        constrained = constrained || read.tensor == spec.name;
      }
    }
    whole.push_back(data || constrained || spec.distribution.kind == task::Distribution::kOffsets);
  }
  return whole;
}

void mix_inputs(const std::vector<ReferenceCase>& pool, const MixCenters& centers, uint64_t seed,
                const std::vector<std::span<unsigned char>>& into, const std::vector<double>& steps,
                const std::vector<bool>& whole, Stores stores, uint64_t* drawn_from,
                const std::vector<int>& joint) {
  if (pool.empty()) throw InternalError("mix_inputs: no cases to mix");
  if (drawn_from != nullptr && pool.size() > 64) {
    throw InternalError("mix_inputs: a pool of more than 64 cases");
  }
  uint64_t used = 0;
  size_t tensors = pool.front().inputs.size();
  if (into.size() != tensors) throw InternalError("mix_inputs: a destination per input wanted");
  uint64_t state = seed;
  // Every whole tensor from one pool case: an offsets tensor and the one bounding its steps agree
  // only within the case that drew them.
  const ReferenceCase* whole_from = nullptr;
  if (std::find(whole.begin(), whole.end(), true) != whole.end()) {
    size_t from = (next_draw(state) >> 40) % pool.size();
    whole_from = &pool[from];
    used |= uint64_t{1} << (from % 64);
  }
  // Each group of inputs a set names together comes from one pool case, drawn per slot.
  std::map<int, size_t> group_case;
  for (size_t t = 0; t < joint.size() && t < tensors; ++t) {
    if (joint[t] >= 0 && !group_case.count(joint[t])) {
      group_case[joint[t]] = (next_draw(state) >> 40) % pool.size();
    }
  }
  float scratch[kMixBlock];
  std::vector<unsigned char> staged;  // a block, mixed here first when stored around the caches
  for (size_t t = 0; t < tensors; ++t) {
    const task::DType dtype = pool.front().inputs[t].dtype();
    const size_t width = task::dtype_size(dtype);
    size_t n = pool.front().inputs[t].count();
    unsigned char* out = into[t].data();
    if (into[t].size() != n * width) {
      throw InternalError("mix_inputs: input " + std::to_string(t) + " has the wrong size");
    }
    if (t < whole.size() && whole[t]) {
      const std::vector<unsigned char>& source = whole_from->inputs[t].bytes();
      if (stores == Stores::kAroundTheCaches) {
        copy_around_caches(out, source.data(), source.size());
      } else {
        std::copy(source.begin(), source.end(), out);
      }
      continue;
    }
    if (n == 0) continue;
    std::optional<double> center = t < centers.size() ? centers[t] : std::optional<double>(0.0);
    double step = t < steps.size() ? steps[t] : 0x1p-22;
    // A byte type has 256 values: a block's shrink is a table of them, built per block from the
    // values decoded once (1.4 G float8 weights mixed at a table lookup a byte, not a conversion
    // each way).
    std::array<float, 256> byte_values{};
    std::array<unsigned char, 256> byte_table{};
    bool by_table = width == 1 && center;
    if (by_table) {
      for (int b = 0; b < 256; ++b) {
        auto byte = static_cast<unsigned char>(b);
        task::decode_values(dtype, &byte, 1, &byte_values[static_cast<size_t>(b)]);
      }
    }
    // float32 values moved on their way into the slot, where it holds whole floats (it does but
    // in tests that misalign it); others staged in a block and copied around the caches.
    bool streamed = stores == Stores::kAroundTheCaches && dtype == task::DType::kFloat32 &&
                    center && reinterpret_cast<uintptr_t>(out) % sizeof(float) == 0;
    bool staging = stores == Stores::kAroundTheCaches && !streamed;
    if (staging) staged.resize(kMixBlock * width);
    for (size_t start = 0; start < n; start += kMixBlock) {
      unsigned char* block = staging ? staged.data() : out + start * width;
      uint64_t draw = next_draw(state);
      size_t from_case =
          t < joint.size() && joint[t] >= 0 ? group_case[joint[t]] : (draw >> 40) % pool.size();
      used |= uint64_t{1} << (from_case % 64);
      const task::TensorValues& source = pool[from_case].inputs[t];
      size_t length = std::min(kMixBlock, n - start);
      size_t from = next_draw(state) % n;
      double unit = static_cast<double>(draw & ((uint64_t{1} << 40) - 1)) * 0x1p-40;
      double shrink = 1 - step - unit * std::max(0.0, kMixSpread - step);
      if (by_table) {
        std::array<float, 256> moved{};
        auto c = static_cast<float>(*center);
        auto factor = static_cast<float>(shrink);
        for (size_t b = 0; b < moved.size(); ++b) moved[b] = c + (byte_values[b] - c) * factor;
        task::encode_values(dtype, moved.data(), moved.size(), byte_table.data());
      }
      size_t first = std::min(length, n - from);  // up to the end, then from the start
      for (auto [at, count, to] :
           {std::tuple{from, first, start}, std::tuple{size_t{0}, length - first, start + first}}) {
        const unsigned char* in = source.bytes().data() + at * width;
        unsigned char* into_block = block + (to - start) * width;
        if (!center) {
          std::copy_n(in, count * width, into_block);
          continue;
        }
        if (by_table) {
          for (size_t i = 0; i < count; ++i) into_block[i] = byte_table[in[i]];
          continue;
        }
        // In float, then rounded to the dtype.
        auto c = static_cast<float>(*center);
        auto factor = static_cast<float>(shrink);
        if (streamed) {
          shrink_around_caches(reinterpret_cast<float*>(into_block),
                               reinterpret_cast<const float*>(in), count, c, factor);
          continue;
        }
        if (dtype == task::DType::kFloat32) {  // no conversion: copied, then moved in place
          std::memcpy(into_block, in, count * sizeof(float));
          shrink_towards(reinterpret_cast<float*>(into_block), count, c, factor);
          continue;
        }
        task::decode_values(dtype, in, count, scratch);
        shrink_towards(scratch, count, c, factor);
        task::encode_values(dtype, scratch, count, into_block);
      }
      if (staging) copy_around_caches(out + start * width, block, length * width);
    }
  }
  if (stores == Stores::kAroundTheCaches) finish_stores_around_caches();
  if (drawn_from != nullptr) *drawn_from = used;
}

void mix_inputs(const std::vector<ReferenceCase>& pool, const MixCenters& centers, uint64_t seed,
                ReferenceCase& into, const std::vector<double>& steps,
                const std::vector<bool>& whole) {
  if (pool.empty()) throw InternalError("mix_inputs: no cases to mix");
  std::vector<std::vector<unsigned char>> mixed;
  for (const task::TensorValues& input : pool.front().inputs) {
    mixed.emplace_back(input.bytes().size());
  }
  std::vector<std::span<unsigned char>> spans(mixed.begin(), mixed.end());
  mix_inputs(pool, centers, seed, spans, steps, whole, Stores::kCached);
  into.inputs.clear();
  for (size_t t = 0; t < mixed.size(); ++t) {
    into.inputs.emplace_back(pool.front().inputs[t].dtype(), std::move(mixed[t]));
  }
}

RunnerTurns::RunnerTurns(const task::Task& task, TurnReference reference, SlotLayout layout,
                         TimedKernel candidate, TimedKernel anchor, std::string anchor_name,
                         std::chrono::milliseconds call_timeout, std::vector<int> cores,
                         bool witness_trusted)
    : task_(task),
      reference_(std::move(reference)),
      layout_(layout),
      candidate_(candidate),
      anchor_(anchor),
      anchor_name_(std::move(anchor_name)),
      call_timeout_(call_timeout),
      cores_(std::move(cores)),
      shares_(witness_trusted ? kWitnessedCheckShares : kCheckShares) {
  candidate_.runner.pause();
  anchor_.runner.pause();
  centers_ = mix_centers(task_);
  steps_ = mix_steps(task_);
  whole_ = whole_inputs(task_, reference_.workload);
  joint_ = joint_inputs(task_);
  in_place_bytes_ = default_in_place_bytes();
}

void RunnerTurns::begin_timed_turns() {
  // The sides calibrated in as many turns as each needed: from here a side's n-th turn is the
  // other's n-th, on the same inputs, so that each can witness the other's.
  calibrating_ = false;
  candidate_turns_ = anchor_turns_ = std::max(candidate_turns_, anchor_turns_);
  whole_turn_ = candidate_turns_ + 1 +
                static_cast<int>(secret_seed() % static_cast<uint64_t>(least_timed_turns_));
  while (!plans_.empty()) drop_plan(plans_.begin()->first);
  loaded_.reset();
}

RunnerTurns::TurnPlan& RunnerTurns::plan(int turn, int calls) {
  auto found = plans_.find(turn);
  if (found != plans_.end()) return found->second;
  TurnPlan& plan = plans_[turn];
  plan.inputs_seed = secret_seed();
  // Checks may take a share of a pair's time in turns; where they cost less (small workloads),
  // every turn is checked. A check's cost is what the last one took, whole (copies and comparison
  // included: on adamw's CPU workload they cost more than its reference), or before any, the
  // reference's time on the correctness cases. Calibration turns are checked as often (their work
  // around a turn sets how long turns are), against the last turn of either side; the first, cold
  // one, whose time calibration does not use, is not. Where the candidate answered the correctness
  // cases first, its first turn is not cold and calibration uses it: the pace of those calls stands
  // for the last turn.
  std::optional<double> yardstick = calibrating_ ? last_turn_seconds_ : anchor_turn_seconds_;
  if (calibrating_ && !yardstick && candidate_before_) yardstick = *candidate_before_ * calls;
  if (calibrating_ && !yardstick) {
    plan.checked = false;
    return plan;
  }
  if (!calibrating_ && turn == whole_turn_) {
    plan.checked = plan.whole = true;
    return plan;
  }
  double cost = check_seconds_ ? *check_seconds_
                               : reference_.seconds_per_check * std::min(kSampledCalls, calls);
  double share = 1;
  if (yardstick && cost > 0) share = shares_.of_anchor_turn * *yardstick / cost;
  plan.checked = secret_chance(std::clamp(share, shares_.least, 1.0));
  return plan;
}

void RunnerTurns::load_turn(SharedBuffers& buffers, TurnPlan& plan, int turn, int calls) {
  // A large turn's second side calls on the inputs the other side's run of this very turn left,
  // which no runner can write (mapped read-only): they are not written again. So that both sides
  // start alike whatever the caches hold (a virtual machine may not say how large they are), no
  // line of the inputs is left cached before either side's turn: the first side's are mixed
  // around the caches, the second side's dropped from them. The outputs are marked last.
  // A smaller turn's inputs are mixed afresh for each side and left in the caches, as the work
  // before a kernel leaves them; there both sides' loads are the same work.
  bool large = in_place_bytes_ > 0 && turn_bytes(calls) >= in_place_bytes_;
  bool in_place = large && loaded_ && loaded_->turn == turn && loaded_->calls == calls &&
                  &candidate_.buffers == &anchor_.buffers;
  loaded_.reset();  // set again once this turn has been accounted for
  if (!in_place) {
    // Mixed straight into the slots: no copy is kept, the slot is the record (see answered_slot).
    plan.sources.assign(static_cast<size_t>(calls), 0);
    for (int slot = 0; slot < calls; ++slot) {
      std::vector<std::span<unsigned char>> into;
      for (size_t i = 0; i < layout_.inputs; ++i) {
        size_t index = layout_.input(slot, i);
        into.emplace_back(static_cast<unsigned char*>(buffers.data(index)), buffers.size(index));
      }
      mix_inputs(*reference_.pool, centers_,
                 plan.inputs_seed + static_cast<uint64_t>(slot) * 0x632BE59BD9B4E019ull, into,
                 steps_, whole_, large ? Stores::kAroundTheCaches : Stores::kCached,
                 &plan.sources[static_cast<size_t>(slot)], joint_);
    }
  }
  for (int slot = 0; in_place && slot < calls; ++slot) {
    for (size_t i = 0; i < layout_.inputs; ++i) {
      size_t index = layout_.input(slot, i);
      evict_from_caches(buffers.data(index), buffers.size(index));
    }
  }
  if (!in_place) record_inputs(buffers, calls);
  for (int slot = 0; slot < calls; ++slot) mark_unwritten(buffers, task_, layout_, slot);
  buffers.fill_canaries(0, static_cast<size_t>(calls) * (layout_.inputs + layout_.outputs));
}

void RunnerTurns::record_inputs(const SharedBuffers& buffers, int calls) {
  input_record_.clear();
  if (layout_.inputs == 0 || calls <= 0) return;
  uint64_t state = secret_seed();
  for (size_t k = 0; k < kInputPlaces; ++k) {
    auto slot = static_cast<int>(next_draw(state) % static_cast<uint64_t>(calls));
    size_t t = next_draw(state) % layout_.inputs;
    size_t index = layout_.input(slot, t);
    size_t width = std::min<size_t>(task::dtype_size(task_.inputs[t].dtype), 8);
    size_t count = buffers.size(index) / width;
    if (count == 0) continue;
    input_record_.push_back({index, (next_draw(state) % count) * width, width, {}});
  }
  // In order, so that the copies read each buffer front to back.
  std::sort(input_record_.begin(), input_record_.end(), [](const auto& a, const auto& b) {
    return std::tie(a.buffer, a.offset) < std::tie(b.buffer, b.offset);
  });
  for (InputPlace& place : input_record_) {
    std::memcpy(place.bytes.data(),
                static_cast<const unsigned char*>(buffers.data(place.buffer)) + place.offset,
                place.width);
  }
}

std::optional<size_t> RunnerTurns::changed_input(const SharedBuffers& buffers) const {
  for (const InputPlace& place : input_record_) {
    const auto* now = static_cast<const unsigned char*>(buffers.data(place.buffer)) + place.offset;
    if (std::memcmp(now, place.bytes.data(), place.width) != 0) return place.buffer;
  }
  return std::nullopt;
}

uint64_t RunnerTurns::turn_bytes(int calls) const {
  uint64_t bytes = 0;
  for (int slot = 0; slot < calls; ++slot) {
    for (size_t i = 0; i < layout_.inputs; ++i) {
      bytes += candidate_.buffers.size(layout_.input(slot, i));
    }
    for (size_t o = 0; o < layout_.outputs; ++o) {
      bytes += candidate_.buffers.size(layout_.output(slot, o));
    }
  }
  return bytes;
}

const ReferenceCase& RunnerTurns::answered_slot(TurnPlan& plan, int slot) {
  auto found = plan.reference.find(slot);
  if (found != plan.reference.end()) return found->second;  // the other side's check asked first
  ReferenceCase answer;
  if (!spare_answers_.empty()) {
    answer = std::move(spare_answers_.back());
    spare_answers_.pop_back();
  }
  answer.label = "fresh inputs";
  const SharedBuffers& buffers = candidate_.buffers;  // both sides call on these (or equal ones)
  std::vector<std::span<const unsigned char>> inputs;
  for (size_t i = 0; i < layout_.inputs; ++i) {
    size_t index = layout_.input(slot, i);
    inputs.emplace_back(static_cast<const unsigned char*>(buffers.data(index)),
                        buffers.size(index));
  }
  reference_.answer(inputs, answer);
  // Asked for between the two sides' runs of a turn: nothing it wrote stays cached for the second
  // side (the reference's runner drops its own buffers' lines, CpuPlatform; it reads the inputs
  // from the slot, copying none).
  for (const std::vector<float>& values : answer.outputs) {
    evict_from_caches(values.data(), values.size() * sizeof(float));
  }
  return plan.reference.emplace(slot, std::move(answer)).first->second;
}

const task::InputSet* RunnerTurns::mixed_tolerance(const TurnPlan& plan, int slot) {
  uint64_t sources =
      static_cast<size_t>(slot) < plan.sources.size() ? plan.sources[static_cast<size_t>(slot)] : 0;
  std::vector<const task::InputSet*> sets;
  for (size_t k = 0; k < std::min<size_t>(reference_.pool->size(), 64); ++k) {
    const std::string& name = (*reference_.pool)[k].set;
    if ((sources >> k & 1) != 0 && !name.empty()) sets.push_back(&task_.input_set(name));
  }
  if (sets.empty()) return nullptr;
  auto found = mixed_sets_.find(sources);
  if (found != mixed_sets_.end()) return &found->second;
  task::InputSet mixed;
  mixed.name = "mixed";
  for (const task::TensorSpec& output : task_.outputs) {
    task::Tolerance loosest = task_.tolerance(output.name);
    for (const task::InputSet* set : sets) {
      task::Tolerance of_set = task_.tolerance(output.name, set);
      loosest.rel_l2 = std::max(loosest.rel_l2, of_set.rel_l2);
      loosest.atol = std::max(loosest.atol, of_set.atol);
      loosest.rtol = std::max(loosest.rtol, of_set.rtol);
      loosest.atol_rms = std::max(loosest.atol_rms, of_set.atol_rms);
    }
    mixed.tolerance.outputs[output.name] = {loosest.rel_l2, loosest.atol, loosest.rtol,
                                            loosest.atol_rms};
  }
  return &mixed_sets_.emplace(sources, std::move(mixed)).first->second;
}

void RunnerTurns::drop_plan(int turn) {
  auto found = plans_.find(turn);
  if (found == plans_.end()) return;
  for (auto& [slot, answer] : found->second.reference) spare_answers_.push_back(std::move(answer));
  plans_.erase(found);
}

namespace {

// `slot`'s outputs at `places` (per output), as floats.
std::vector<std::vector<float>> values_at(const task::Task& task, const SharedBuffers& buffers,
                                          const SlotLayout& layout, int slot,
                                          const std::vector<std::vector<size_t>>& places) {
  std::vector<std::vector<float>> values(task.outputs.size());
  for (size_t o = 0; o < task.outputs.size(); ++o) {
    task::DType dtype = task.outputs[o].dtype;
    size_t width = task::dtype_size(dtype);
    const auto* bytes = static_cast<const unsigned char*>(buffers.data(layout.output(slot, o)));
    values[o].resize(places[o].size());
    for (size_t k = 0; k < places[o].size(); ++k) {
      const unsigned char* at = bytes + places[o][k] * width;
      if (dtype == task::DType::kFloat32) {
        std::memcpy(&values[o][k], at, sizeof(float));  // a load, not a call per element
      } else {
        task::decode_values(dtype, at, 1, &values[o][k]);
      }
    }
  }
  return values;
}

task::Tolerance widened(task::Tolerance tolerance, double factor) {
  return {tolerance.rel_l2 * factor, tolerance.atol * factor, tolerance.rtol * factor,
          tolerance.atol_rms * factor};
}

}  // namespace

std::vector<std::vector<size_t>> RunnerTurns::secret_places(const SharedBuffers& buffers) const {
  uint64_t state = secret_seed();
  std::vector<std::vector<size_t>> places(task_.outputs.size());
  for (size_t o = 0; o < task_.outputs.size(); ++o) {
    size_t count = buffers.size(layout_.output(0, o)) / task::dtype_size(task_.outputs[o].dtype);
    for (size_t k = 0; k < std::min(count, kWitnessElements); ++k) {
      places[o].push_back(count <= kWitnessElements ? k : next_draw(state) % count);
    }
    // In order: every slot is then read front to back, as the caches prefetch (on small
    // workloads, a thousand slots a turn, reading them at random was most of a turn's checks).
    std::sort(places[o].begin(), places[o].end());
  }
  return places;
}

bool RunnerTurns::witness(const TimedKernel& kernel, TurnPlan& plan, int calls, int turn,
                          Verdict& verdict, Blame& blame) {
  if (plan.witness_values.empty()) {
    // The first side: its values at the places check_turn drew after its turn.
    for (int slot = 0; slot < calls; ++slot) {
      plan.witness_values.push_back(
          values_at(task_, kernel.buffers, layout_, slot, plan.witness_places));
    }
    return true;
  }
  ++turns_witnessed_;
  int compared = std::min(calls, static_cast<int>(plan.witness_values.size()));
  for (int slot = 0; slot < compared; ++slot) {
    std::vector<std::vector<float>> mine =
        values_at(task_, kernel.buffers, layout_, slot, plan.witness_places);
    const std::vector<std::vector<float>>& theirs = plan.witness_values[static_cast<size_t>(slot)];
    const task::InputSet* set = mixed_tolerance(plan, slot);
    bool agree = true;
    for (size_t o = 0; o < task_.outputs.size() && agree; ++o) {
      task::Tolerance allowance =
          widened(task_.tolerance(task_.outputs[o].name, set), kWitnessAllowance);
      agree = check_output(task_.outputs[o].name, mine[o].data(), theirs[o].data(), mine[o].size(),
                           allowance)
                  .ok;
    }
    if (agree) continue;
    // They differ: the reference says who is wrong, this side on the whole call, the other on
    // the places its values were kept for.
    std::string call =
        fmt::format("call {} of {} in timed turn {} (fresh inputs)", slot + 1, calls, turn);
    const ReferenceCase& reference_case = answered_slot(plan, slot);
    if (!check_outputs_of_slot(task_, kernel.buffers, layout_, slot, reference_case, call, verdict,
                               set)) {
      blame = Blame::kThisSide;
      return false;
    }
    for (size_t o = 0; o < task_.outputs.size(); ++o) {
      std::vector<float> expected;
      for (size_t place : plan.witness_places[o]) {
        expected.push_back(reference_case.outputs[o][place]);
      }
      OutputCheck check =
          check_output(task_.outputs[o].name, theirs[o].data(), expected.data(), expected.size(),
                       task_.tolerance(task_.outputs[o].name, set));
      if (!check.ok) {
        verdict = Verdict{};
        record_output_check(
            check,
            call + ", at " + std::to_string(expected.size()) + " places drawn after the turn",
            verdict);
        blame = Blame::kOtherSide;
        return false;
      }
    }
  }
  return true;
}

bool RunnerTurns::check_turn(const TimedKernel& kernel, TurnPlan& plan, int calls, int turn,
                             Verdict& verdict, Blame& blame) {
  blame = Blame::kThisSide;
  std::string when = fmt::format("timed turn {}", turn);
  size_t buffers = static_cast<size_t>(calls) * (layout_.inputs + layout_.outputs);
  if (auto damaged = kernel.buffers.damaged_canary(0, buffers)) {
    verdict.status = Status::kIncorrectShape;
    verdict.message = wrote_outside(task_, layout_, *damaged, when);
    return false;
  }
  if (int threads = kernel.runner.thread_count(); threads > task_.threads) {
    verdict.status = Status::kRuntimeError;
    verdict.message = fmt::format(
        "{}: the kernel left {} thread(s) running after it returned (the task allows {} thread(s))",
        when, threads - 1, task_.threads);
    return false;
  }
  // The runners map the inputs read-only (runner_main.cpp), and a write into one ends the turn
  // (CallOutcome::kWroteInput); the record kept when they were loaded finds a change made another
  // way, before the reference answers from them or the other side calls on them.
  if (std::optional<size_t> changed = changed_input(kernel.buffers)) {
    record_input_write(task_, kernel.buffers, layout_, *changed, 0, buffers, when, verdict);
    return false;
  }
  // Every call accounted for: each wrote its own slot, whoever said DONE. Looked for at places
  // drawn after the turn (on a timed turn, the first side's draw is the witness's for both).
  std::vector<std::vector<size_t>> drawn;
  if (calibrating_ || plan.witness_places.empty()) {
    drawn = secret_places(kernel.buffers);
    if (!calibrating_) plan.witness_places = drawn;
  }
  const std::vector<std::vector<size_t>>& places = calibrating_ ? drawn : plan.witness_places;
  for (int slot = 0; slot < calls; ++slot) {
    std::string unwritten = unwritten_element(task_, kernel.buffers, layout_, slot, places);
    if (unwritten.empty()) continue;
    verdict.status = Status::kIncorrectNumerical;
    verdict.message = fmt::format(
        "call {} of {} in {} left its {} unwritten: the turn's calls are not all accounted for "
        "(a call skipped, or the turn said done before its calls were)",
        slot + 1, calls, when, unwritten);
    return false;
  }
  if (!calibrating_ && !witness(kernel, plan, calls, turn, verdict, blame)) return false;
  if (!plan.checked) return true;
  if (plan.reference.empty()) ++turns_checked_;
  if (plan.whole && plan.sides_done == 0) ++turns_checked_whole_;
  // The sample, drawn now, in this process: which calls were checked was decided after they ran.
  std::vector<int> slots(static_cast<size_t>(calls));
  for (int slot = 0; slot < calls; ++slot) slots[static_cast<size_t>(slot)] = slot;
  int sampled = plan.whole ? calls : std::min(kSampledCalls, calls);
  for (int i = 0; i < sampled; ++i) {
    uint64_t pick = static_cast<uint64_t>(i) + secret_seed() % static_cast<uint64_t>(calls - i);
    std::swap(slots[static_cast<size_t>(i)], slots[pick]);
  }
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < sampled; ++i) {
    int slot = slots[static_cast<size_t>(i)];
    const ReferenceCase& reference_case = answered_slot(plan, slot);
    std::string call = fmt::format("call {} of {} in {} (fresh inputs)", slot + 1, calls, when);
    if (!check_outputs_of_slot(task_, kernel.buffers, layout_, slot, reference_case, call, verdict,
                               mixed_tolerance(plan, slot))) {
      return false;
    }
  }
  plan.check_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return true;
}

TurnResult RunnerTurns::run_turn(Side side, int calls) {
  if (calls > layout_.slots) {
    throw InternalError(fmt::format("a timed turn of {} calls on {} slots", calls, layout_.slots));
  }
  bool is_candidate = side == Side::kCandidate;
  TimedKernel& kernel = is_candidate ? candidate_ : anchor_;
  int turn = ++(is_candidate ? candidate_turns_ : anchor_turns_);
  TurnPlan& turn_plan = plan(turn, calls);
  // Written by this process just before the turn, on both sides alike.
  load_turn(kernel.buffers, turn_plan, turn, calls);

  std::optional<double>& per_call = is_candidate ? candidate_per_call_ : anchor_per_call_;
  kernel.runner.resume();
  std::optional<CpuTicks> ticks_before = read_cpu_ticks(cores_);
  // The runner is stopped before the turn's clocks are read (Runner::turn).
  CallResult call = kernel.runner.turn(calls, turn_deadline(calls, per_call, call_timeout_));
  std::optional<CpuTicks> ticks_after = read_cpu_ticks(cores_);
  kernel.runner.pause();
  per_call = call.seconds / std::max(calls, 1);
  last_turn_seconds_ = call.seconds;
  if (!is_candidate) anchor_turn_seconds_ = call.seconds;
  TurnResult result;
  result.seconds = call.seconds;
  if (task_.threads <= 1 && call.cpu_seconds >= 0) result.cpu_seconds = call.cpu_seconds;
  // Off the CPU: what the wall time has beyond running and waiting for a core. With many threads
  // the wait is not known: the threads' idle share of their wall time.
  // Nor is the harness's own wait for a core (the runner then waits to be read): turns of a few
  // milliseconds on a busy machine were otherwise a third "off the CPU".
  if (call.cpu_seconds >= 0 && task_.threads <= 1 && call.waiting_seconds >= 0) {
    result.off_cpu_seconds = std::max(
        0.0, call.seconds - call.cpu_seconds - call.waiting_seconds - call.harness_waiting_seconds);
  } else if (call.cpu_seconds >= 0 && task_.threads > 1) {
    result.off_cpu_seconds = std::max(0.0, call.seconds - call.cpu_seconds / task_.threads);
  }
  if (task_.threads <= 1 && call.waiting_seconds >= 0)
    result.waiting_seconds = call.waiting_seconds;
  if (ticks_before && ticks_after) result.ticks = *ticks_after - *ticks_before;
  result.involuntary_switches = std::max<int64_t>(call.involuntary_switches, 0);
  if (call.outcome != CallOutcome::kDone) {
    if (!is_candidate) {
      std::string failed = "the anchor kernel (" + anchor_name_ + ") failed while timing: ";
      if (call.outcome == CallOutcome::kMachineBusy) throw MachineBusy(failed + call.message);
      throw UserError(failed + call.message);
    }
    if (call.outcome == CallOutcome::kWroteInput) {
      Verdict verdict;
      record_input_write(task_, kernel.buffers, layout_, call.input_written, 0,
                         static_cast<size_t>(calls) * (layout_.inputs + layout_.outputs),
                         fmt::format("timed turn {}", turn), verdict);
      result.failure = TurnFailure{verdict.status, verdict.message};
      return result;
    }
    result.failure = TurnFailure{outcome_status(call.outcome), "while timing: " + call.message};
    return result;
  }
  // Both sides are checked after their turns: the same work between turns on both, and an
  // anchor that gives wrong answers is no yardstick.
  Verdict verdict;
  Blame blame = Blame::kThisSide;
  bool correct = check_turn(kernel, turn_plan, calls, turn, verdict, blame);
  loaded_.reset();
  if (correct) loaded_ = LoadedTurn{turn, calls};
  if (++turn_plan.sides_done == 2 || calibrating_) {
    // Both sides' checks; a calibration turn has no twin on the other side, so twice its own.
    // The turn checked whole is no measure of what a sampled check costs.
    if (turn_plan.checked && correct && !turn_plan.whole) {
      check_seconds_ = turn_plan.check_seconds * (turn_plan.sides_done == 2 ? 1 : 2);
    }
    if (turn_plan.sides_done == 2) drop_plan(turn);
  }
  if (correct) return result;
  bool candidate_wrong = is_candidate == (blame == Blame::kThisSide);
  if (!candidate_wrong) {
    throw UserError("the anchor kernel (" + anchor_name_ +
                    ") gave wrong results while timing: " + verdict.message);
  }
  if (verdict.status == Status::kIncorrectNumerical &&
      verdict.message.find("into its") == std::string::npos) {
    verdict.message +=
        "; the kernel was correct on every case before timing, so it may be skipping calls or "
        "returning results cached from earlier calls";
  }
  result.failure = TurnFailure{verdict.status, verdict.message};
  return result;
}

}  // namespace accelopt::platform::cpu
