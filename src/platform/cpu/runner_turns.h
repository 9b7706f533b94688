// The CPU platform's side of paired timing (platform/paired_timing.h): the candidate and the
// anchor in two runner processes pinned to one core, the idle one SIGSTOPped.
//
// Timed turns run on fresh inputs, never the correctness cases: a kernel that remembered the
// answers it gave during the correctness check (keyed by its inputs' content) only copied them in
// every timed call, and a plain copy of remembered answers timed 39.8x the baseline on silu small
// (tests/adversarial/correctness/memoizes_answers_by_content.cpp).
//
// The kernel shares its process with the runner's loop, so nothing it could reach may decide the
// verdict (issue 23): it can read the command pipe, answer DONE itself, read the runner's memory.
// So every call of a turn has a slot of its own (runner_protocol.h's SlotLayout: call i reads and
// writes slot i, turns have at most as many calls as there are slots), and the harness alone
// accounts for the turn, after it has stopped the runner:
//   - before the turn, slot i gets inputs no kernel saw before (blocks of kMixBlock elements from a
//     pool of cases drawn for this evaluation, each block from a random place, moved towards its
//     center by a factor drawn per block from a continuum up to kMixSpread below 1: mix_inputs).
//     The pool holds a case of every edge-case family the correctness check draws (the wider
//     spread, each input set: timing_cases), and each tensor's blocks are drawn from it apart from
//     the others', so a timed call meets large scores, zeros or strong decays as a correctness
//     call does, and one tensor's family beside another's own distribution. A call is checked
//     against the loosest tolerance of the families its blocks came from (mixed_tolerance);
//     written straight into the slot, and outputs of kUnwritten. The runners map every input
//     read-only (runner_main.cpp): no kernel can change what it or the other side calls on, and a
//     write into an input ends the turn;
//   - after it, kWitnessElements places of each output, drawn from getrandom(2) after the first
//     side's turn, must be written in every slot (none left kUnwritten: a call skipped, or a DONE
//     answered early, shows at every place); every call is compared with the other side's run of
//     the same turn on the same inputs at those places (the witness; a difference goes to the
//     reference, which says which side is wrong); and on a turn the plan checks, kSampledCalls
//     calls drawn then are compared with the reference on their inputs, whole. Samples and places
//     exist only in the harness, after the turn; the runner never holds a seed or a schedule.
// A kernel that computes wrong or stale answers in a call fails the witness in that turn where the
// witness is the task's baseline (the default anchor): a difference beyond the tolerance at the
// witness's places goes to the reference (issue 44: an allowance of 2.5x the tolerance let a
// kernel 1.75x off in timed calls pass). Against any other anchor, which could share its faults,
// it survives a checked turn with probability (1 - f)^kSampledCalls at most, f its share of such
// calls. Every evaluation also checks one timed turn whole, every call of it against the
// reference, drawn in secret among the turns every evaluation runs. One that skips calls does not
// survive at all. No input repeats within a turn or across turns, so remembering answers, by
// content or by slot, never pays.
//
// On large workloads a reference check costs more than the turn (float64 loops, and the copies and
// the comparison of tens of megabytes), so a turn is checked with a probability drawn in secret
// before it runs (CheckShares): against the baseline, enough that checks take about a sixteenth
// of the pair's time in turns; against another anchor, a quarter and at least one turn in five.
// Every turn is checked where checks are cheap (all small workloads). Calibration turns, in which
// each side runs alone, are checked as often but not witnessed. Both sides' n-th turns
// get the same inputs in the same slots and the same check: the same work and the same cache
// state. On a large turn (the CPU workloads: default_in_place_bytes) the second side calls on the
// inputs the first side's turn left instead of writing them again, and before either side's turn
// every line of the inputs is dropped from the caches and the outputs are marked last: both start
// alike whatever size the caches are (a virtual machine may not say; adamw's and silu's CPU
// workloads timed against themselves showed no order effect beyond 1 %, docs/harness.md round six).
//
// Both sides call on one set of buffers (the region both runners map). With one set each, a
// memory-bound kernel timed against itself (adamw's CPU workload, benchmarks/timing_honesty) came
// out up to 5 % off 1.0, beyond its own interval, in 4 of 6 evaluations: an offset that stays for
// a whole evaluation, as the placement of each side's pages would. One set takes that placement
// out of the comparison. Sharing is safe: the idle side is stopped, inputs are read-only to both,
// and every turn rewrites the outputs and canaries before it starts, so neither side can read or
// leave anything for the other.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "platform/cpu/call_check.h"
#include "platform/cpu/runner.h"
#include "platform/paired_timing.h"
#include "platform/shared_buffers.h"

namespace accelopt::platform::cpu {

// A timed turn's deadline: kTurnDeadlineFactor times what the turn's calls take at
// `seconds_per_call` (the side's previous turn), never under `call_timeout` (what one call gets:
// short turns on a busy machine) and never over `call_timeout` for each call. Without a previous
// turn, the latter. A kernel that hangs inside a turn of thousands of calls is then a TIMEOUT
// within seconds, not after hours.
inline constexpr double kTurnDeadlineFactor = 10;
std::chrono::milliseconds turn_deadline(int calls, std::optional<double> seconds_per_call,
                                        std::chrono::milliseconds call_timeout);

// The largest data cache of this machine in bytes (sysfs), 0 when unknown.
uint64_t last_level_cache_bytes();

// Writes back and drops from every cache the lines of `bytes` bytes at `data` (clflush on x86;
// elsewhere nothing).
void evict_from_caches(const void* data, size_t bytes);

// The least bytes (inputs and outputs) of a turn whose second side calls on the first side's
// inputs, none of them cached before either side's turn (RunnerTurns): twice the last-level cache,
// or 64 MiB where the system does not say how large it is.
uint64_t default_in_place_bytes();

// Fills `answer.outputs` (in place) from `inputs`, one span per input in its dtype: the
// reference's runner (CpuPlatform).
using ReferenceAnswer = std::function<void(
    const std::vector<std::span<const unsigned char>>& inputs, ReferenceCase& answer)>;

// Calls of a checked turn compared with the reference, drawn after the turn.
inline constexpr int kSampledCalls = 4;
// How many timed turns are checked against the reference: at least `least` of them, and above
// that as many as keep their checks within `of_anchor_turn` of the anchor's turn time (a check's
// cost measured as it goes).
struct CheckShares {
  double least = 0;
  double of_anchor_turn = 0;
};
// Against an anchor an agent wrote (a parent, or the candidate itself), which could share the
// candidate's faults: a kernel wrong in every timed call survives n turns with 0.8^n at most.
inline constexpr CheckShares kCheckShares{0.2, 0.5};
// Against the task's baseline, whose answers witness every call in the turn it happens
// (kWitnessElements), the reference looks only for what the witness lets by (an error within its
// allowance): about a sixteenth of a pair's time in turns, and no least share.
inline constexpr CheckShares kWitnessedCheckShares{0, 0.125};
// Places in every output of every call at which the two sides' runs of a turn are compared, drawn
// in secret after the first side's turn. A call that got a share q of its elements wrong passes
// with (1 - q)^kWitnessElements at most: 3e-5 for q = 1 %.
inline constexpr size_t kWitnessElements = 1024;
// The witness's allowance, in multiples of the task's tolerance: any difference beyond the
// tolerance goes to the reference, which says who is wrong. Two honest answers may differ by up to
// twice it, and then cost a reference check; a larger allowance let a kernel off by 1.75x the
// tolerance in timed calls only pass (issue 44).
inline constexpr double kWitnessAllowance = 1;
// Input bytes the harness keeps a copy of when it loads a turn, at places drawn in secret among
// all the turn's inputs, and compares after each side's turn: the inputs are the record the
// reference answers from and the other side calls on, and read-only mappings are one mechanism
// (a hole in them, mremap of a writable page of the shared memory, once let a kernel rewrite the
// other side's inputs). A turn that changed a share q of its input elements passes with
// (1 - q)^kInputPlaces at most.
inline constexpr size_t kInputPlaces = 1024;

// Elements per block of a mixed input. Each block starts at a random place in a pool case and is
// moved by a factor of its own, so no block recurs, and fewer, longer blocks leave fewer seams.
// Blocks of 64 made the harness wait on memory for each one (mixing was a quarter of adamw's CPU
// workload, `perf`), and so did blocks of 4096 (16 KB): the first lines of each come from memory
// before the prefetcher sees the stream, so one call's inputs of adamw's (89.6 MB) mixed in 15.3 ms
// at 4096 and in 8.3 ms at 16384 (64 KB).
inline constexpr size_t kMixBlock = 16384;
// How far below 1 a block's factor may lie: far more than any tolerance, so that an answer kept
// from a block seen before is not the answer to a block moved by another factor. When blocks moved
// by one of 8 factors a few parts per million from 1, a kernel on a small workload (a tensor one
// block long) found each input among the pool cases it had seen, rotated, and copied the kept
// answer: within tolerance, and 1.4x an honest kernel's speed.
inline constexpr double kMixSpread = 0.125;

// Where a tensor's mixed values shrink towards (nullopt: left as drawn, a constant tensor): the
// distribution's mean, or its low end for a uniform one, so that every value stays in its range.
using MixCenters = std::vector<std::optional<double>>;
MixCenters mix_centers(const task::Task& task);

// The least shrink of each input in mix_inputs: 2^-22 for float32, and one step of the narrow
// formats (2^-8 bfloat16, 2^-11 float16; 2^-5 float8_e4m3fn), since a smaller move is lost when
// the value is rounded to the tensor's dtype.
std::vector<double> mix_steps(const task::Task& task);

// The inputs a timed turn copies whole from one pool case, never in blocks: offsets tensors
// (task.h's kOffsets), whose blocks from different places would not be one non-decreasing
// sequence from 0 to its total, inputs a constraint reads (so that a mix keeps what the case's
// drawing checked), and the inputs `workload` gives as data (its file inputs, the same in every
// case). They repeat across turns; the inputs mixed beside them do not.
std::vector<bool> whole_inputs(const task::Task& task, const task::Workload* workload = nullptr);

// `pool`'s inputs, mixed into one fresh case: block b of tensor t comes from a pool case and a
// place in it drawn from `seed`, its values moved towards the tensor's center by a factor
// 1 - steps[t] - u * (kMixSpread - steps[t]), u in [0, 1) drawn per block (steps[t] 2^-22 where
// `steps` has none), so that no block equals one seen before, nor is near one within tolerance; a
// tensor `whole` marks is copied whole, all such tensors from one pool case drawn from `seed`.
// Every tensor gets `pool`'s element counts.
void mix_inputs(const std::vector<ReferenceCase>& pool, const MixCenters& centers, uint64_t seed,
                ReferenceCase& into, const std::vector<double>& steps = {},
                const std::vector<bool>& whole = {});
// How mix_inputs writes: through the caches, which keep what was written last, or around them
// (streaming stores on x86), which leaves no line of the destination cached.
enum class Stores { kCached, kAroundTheCaches };
// The same, written into `into`: one span per input, each of its tensor's byte size (a timed
// slot's buffers, written in place). `drawn_from`, where given, gets which pool cases a block came
// from: bit k for pool[k] (a pool of at most 64 cases). Inputs with the same `joint` group
// (joint_inputs; -1: none) take every block from one pool case, drawn per call.
void mix_inputs(const std::vector<ReferenceCase>& pool, const MixCenters& centers, uint64_t seed,
                const std::vector<std::span<unsigned char>>& into, const std::vector<double>& steps,
                const std::vector<bool>& whole, Stores stores, uint64_t* drawn_from = nullptr,
                const std::vector<int>& joint = {});

// Inputs an input set names together, in groups (a group id per input, -1 for an input no set
// names beside another): their values belong together (mamba's strong_decay pairs a step with a
// negative state matrix; alone, a state matrix of -2 beside a negative step grows without bound
// and no float32 kernel follows its float64 reference). The mix keeps each group from one pool
// case per call and draws the groups, and every other input, apart.
std::vector<int> joint_inputs(const task::Task& task);

// A started runner and the buffers it calls on.
struct TimedKernel {
  Runner& runner;
  SharedBuffers& buffers;
};

// What timed turns are checked against: fresh cases to mix inputs from (inputs only), the
// reference that answers them, and how dear a check of one call is until one was measured (the
// reference's whole answer and both sides' comparisons).
struct TurnReference {
  std::shared_ptr<const std::vector<ReferenceCase>> pool;  // never null
  const task::Workload* workload = nullptr;                // whose file inputs are copied whole
  ReferenceAnswer answer;
  double seconds_per_check = 0;
};

class RunnerTurns : public PairedTurns {
 public:
  // Both runners start paused. The buffers have `layout`; the sides may share them. The runners
  // are pinned to `cores`.
  // `witness_trusted`: the anchor is the task's baseline, so its answers witness the
  // candidate's (kWitnessedCheckShares).
  RunnerTurns(const task::Task& task, TurnReference reference, SlotLayout layout,
              TimedKernel candidate, TimedKernel anchor, std::string anchor_name,
              std::chrono::milliseconds call_timeout, std::vector<int> cores,
              bool witness_trusted = false);

  TurnResult run_turn(Side side, int calls) override;
  void begin_timed_turns() override;
  std::vector<int> timed_cores() const override { return cores_; }
  int most_calls_per_turn() const override { return layout_.slots; }
  std::optional<double> seconds_per_call_before(Side side) const override {
    return side == Side::kCandidate ? candidate_before_ : std::nullopt;
  }
  // The candidate's seconds per call on the correctness cases, which it answered in its runner and
  // on these buffers before timing (CpuPlatform::check_correctness). They set its first turn's
  // deadline (turn_deadline) as a previous turn's would: a kernel that hangs there is a TIMEOUT
  // after kTurnDeadlineFactor times the turn's expected time, not after call_timeout per call.
  void set_candidate_seconds_per_call_before(double seconds) {
    candidate_before_ = seconds;
    candidate_per_call_ = seconds;
  }

  int turns_checked() const { return turns_checked_; }  // turn numbers, not sides' turns
  int turns_witnessed() const { return turns_witnessed_; }
  int turns_checked_whole() const { return turns_checked_whole_; }  // every call checked
  // How many timed turns each side runs at least (warm-up and the least pairs): the turn checked
  // whole is drawn among them (1 by default: the first timed turn).
  void set_least_timed_turns(int turns) { least_timed_turns_ = std::max(turns, 1); }
  // Tests: the shares of turns checked against the reference.
  void set_check_shares(CheckShares shares) { shares_ = shares; }
  // Tests: the least bytes of a turn for which the second side of a turn finds the first side's
  // inputs in place (default_in_place_bytes by default; 0: never).
  void set_in_place_bytes(uint64_t bytes) { in_place_bytes_ = bytes; }

 private:
  // Turn n's secrets, the same for both sides; dropped once both ran it.
  struct TurnPlan {
    uint64_t inputs_seed = 0;
    bool checked = true;
    bool whole = false;             // every call checked, not kSampledCalls of them
    std::vector<uint64_t> sources;  // per slot: the pool cases its blocks came from (mix_inputs)
    std::map<int, ReferenceCase> reference;  // the reference's answers per slot, once computed
    int sides_done = 0;
    double check_seconds = 0;  // both sides' checks of sampled calls
    // The witness: places in each output drawn after the first side's turn, and that side's
    // values there, per slot.
    std::vector<std::vector<size_t>> witness_places;
    std::vector<std::vector<std::vector<float>>> witness_values;
  };
  // Which side a failed check blames.
  enum class Blame : uint8_t { kThisSide, kOtherSide };

  TurnPlan& plan(int turn, int calls);
  // The turn whose inputs the shared slots hold, once a side's run of it was accounted for.
  struct LoadedTurn {
    int turn = 0, calls = 0;
  };

  // Puts the plan's fresh inputs in slots 0 .. calls - 1 (and in cases_), unless the other side's
  // run of this turn left them there, and kUnwritten in their outputs.
  void load_turn(SharedBuffers& buffers, TurnPlan& plan, int turn, int calls);
  // The input set whose tolerance checks `slot`'s call: nullptr where every block came from the
  // task's own distributions, else one whose tolerance is, per output and field, the loosest of
  // the task's and those of the sets its blocks came from.
  const task::InputSet* mixed_tolerance(const TurnPlan& plan, int slot);
  uint64_t turn_bytes(int calls) const;  // inputs and outputs of slots 0 .. calls - 1
  // Accounts for the turn's calls (fences, threads, every output written), compares them with the
  // other side's run of the turn (the witness) and, when the plan says so, checks a sample of them
  // against the reference; false with `verdict` filled and `blame` saying whose fault it was.
  bool check_turn(const TimedKernel& kernel, TurnPlan& plan, int calls, int turn, Verdict& verdict,
                  Blame& blame);
  // kWitnessElements places in each output (all of a smaller one), drawn from getrandom(2): after
  // a turn, so that no kernel can know them.
  std::vector<std::vector<size_t>> secret_places(const SharedBuffers& buffers) const;
  // Keeps kInputPlaces input elements of slots 0 .. calls - 1 as they are now, at places drawn in
  // secret; the first that differs now, if any (a buffer index).
  void record_inputs(const SharedBuffers& buffers, int calls);
  std::optional<size_t> changed_input(const SharedBuffers& buffers) const;
  // The first side's values at the witness places, or the second's compared with them.
  bool witness(const TimedKernel& kernel, TurnPlan& plan, int calls, int turn, Verdict& verdict,
               Blame& blame);
  // The reference's answer for `slot` (outputs only), from the inputs as they lie in the shared
  // buffers; computed once per plan, for both sides.
  const ReferenceCase& answered_slot(TurnPlan& plan, int slot);
  // Drops turn `turn`'s plan, keeping its answers' storage for later checks.
  void drop_plan(int turn);

  const task::Task& task_;
  TurnReference reference_;
  SlotLayout layout_;
  TimedKernel candidate_, anchor_;
  std::string anchor_name_;
  std::chrono::milliseconds call_timeout_;
  std::vector<int> cores_;
  int candidate_turns_ = 0, anchor_turns_ = 0, turns_checked_ = 0, turns_witnessed_ = 0;
  int turns_checked_whole_ = 0;
  int least_timed_turns_ = 1, whole_turn_ = 0;     // the turn checked whole, drawn in secret
  std::map<uint64_t, task::InputSet> mixed_sets_;  // mixed_tolerance's, by pool cases drawn
  std::optional<double> candidate_before_;         // set_candidate_seconds_per_call_before
  bool calibrating_ = true;  // until begin_timed_turns: turns checked, not witnessed
  CheckShares shares_ = kCheckShares;
  std::map<int, TurnPlan> plans_;
  // Answers of dropped plans, whose buffers later checks fill again: tens of megabytes of fresh
  // pages each cost more than the check on these machines (docs/harness.md).
  std::vector<ReferenceCase> spare_answers_;
  MixCenters centers_;
  std::vector<double> steps_;
  std::vector<bool> whole_;  // inputs copied whole from one pool case (whole_inputs)
  std::vector<int> joint_;   // inputs a set names together (joint_inputs)
  std::optional<LoadedTurn> loaded_;
  struct InputPlace {
    size_t buffer = 0, offset = 0, width = 0;
    std::array<unsigned char, 8> bytes{};
  };
  std::vector<InputPlace> input_record_;  // record_inputs
  uint64_t in_place_bytes_ = 0;
  // Wall seconds per call in each side's last turn, for the next turn's deadline.
  std::optional<double> candidate_per_call_, anchor_per_call_;
  std::optional<double> anchor_turn_seconds_;  // the anchor's last turn: how dear a check may be
  std::optional<double> last_turn_seconds_;    // either side's, for calibration turns
  std::optional<double> check_seconds_;        // the last check of sampled calls, whole
};

}  // namespace accelopt::platform::cpu
