// The evaluation queue against a real PostgreSQL server: jobs are claimed once each, two worker
// processes share one queue, heartbeats keep a long evaluation, and a worker SIGKILLed in the
// middle of an evaluation loses its lease, after which the evaluation is redone exactly once and
// nothing is lost or recorded twice.
#include "queue/queue.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "common/files.h"
#include "queue/evaluation_request.h"
#include "queue/remote_platform.h"
#include "queue/worker.h"
#include "store/postgres_test_fixture.h"
#include "task/task.h"

namespace accelopt::queue {
namespace {

using namespace std::chrono_literals;

using QueueTest = store::PostgresTest;

// A stand-in evaluation: the request's number, doubled, after `delay`.
Evaluate doubling(std::chrono::milliseconds delay) {
  return [delay](const Json& request, const std::atomic<bool>&) {
    std::this_thread::sleep_for(delay);
    return Json{{"status", "PASSED"}, {"value", request.at("n").get<int>() * 2}};
  };
}

TEST_F(QueueTest, AJobIsClaimedOnceAndCompletedWithItsVerdict) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 21}});
  EXPECT_FALSE(queue->claim("w", "cuda", 10s).has_value());  // another platform's worker
  std::optional<Job> job = queue->claim("w", "cpu", 10s);
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(job->id, id);
  EXPECT_EQ(job->attempt, 1);
  EXPECT_EQ(job->request["n"], 21);
  EXPECT_FALSE(queue->claim("v", "cpu", 10s).has_value());  // leased: nobody else gets it
  EXPECT_TRUE(queue->heartbeat(*job, 10s));
  EXPECT_TRUE(queue->complete(*job, Json{{"value", 42}}));
  // Run again (as across a reconnection): reported recorded, and the first verdict stays.
  EXPECT_TRUE(queue->complete(*job, Json{{"value", 43}}));
  std::optional<Outcome> outcome = queue->outcome(id);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->state, JobState::kDone);
  EXPECT_EQ((*outcome->result)["value"], 42);
  EXPECT_EQ(queue->counts().done, 1);
}

TEST_F(QueueTest, AnExpiredLeaseIsRetriedOnceThenFails) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 1}}, /*max_attempts=*/2);
  std::optional<Job> first = queue->claim("a", "cpu", 100ms);
  ASSERT_TRUE(first.has_value());
  std::this_thread::sleep_for(300ms);
  std::optional<Job> second = queue->claim("b", "cpu", 100ms);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->id, id);
  EXPECT_EQ(second->attempt, 2);
  EXPECT_FALSE(queue->heartbeat(*first, 10s));  // the first worker lost it
  EXPECT_FALSE(queue->complete(*first, Json{{"late", true}}));
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(queue->claim("c", "cpu", 100ms).has_value());  // no attempt left
  std::optional<Outcome> outcome = queue->outcome(id);
  EXPECT_EQ(outcome->state, JobState::kFailed);
  EXPECT_EQ(outcome->attempts, 2);
  EXPECT_NE(outcome->error.find("lease of b expired"), std::string::npos) << outcome->error;
}

TEST_F(QueueTest, AHarnessFailureGoesToAnotherWorkerThenFailsTheJobWithEveryReason) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 1}});
  EXPECT_TRUE(queue->fail(*queue->claim("a", "cpu", 10s), "task folder not found"));
  EXPECT_EQ(queue->outcome(id)->state, JobState::kQueued);
  EXPECT_FALSE(queue->claim("a", "cpu", 10s).has_value());  // kept for the others first
  EXPECT_TRUE(queue->fail(*queue->claim("b", "cpu", 10s), "device error"));
  EXPECT_TRUE(queue->fail(*queue->claim("c", "cpu", 10s), "compiler missing"));
  std::optional<Outcome> outcome = queue->outcome(id);
  EXPECT_EQ(outcome->state, JobState::kFailed);
  EXPECT_EQ(outcome->attempts, 3);
  EXPECT_EQ(outcome->error, "a: task folder not found; b: device error; c: compiler missing");
}

TEST_F(QueueTest, AMalformedRowIsFailedAndTheWorkerCarriesOn) {
  auto queue = Queue::open(url());
  psql(
      "INSERT INTO evaluation_queue (platform, request, max_attempts) "
      "VALUES ('cpu', 'this is not JSON', 3)");
  int64_t shapeless = queue->enqueue("cpu", Json{{"nonsense", true}});
  int64_t good = queue->enqueue("cpu", Json{{"n", 4}});
  WorkerOptions options;
  options.url = url();
  options.idle_exit = 500ms;
  std::atomic<bool> stop = false;
  std::ostringstream log;
  WorkerStats stats = run_worker(
      options,
      [](const Json& request, const std::atomic<bool>& abandon) {
        if (!request.contains("n")) throw MalformedRequest("no n in the request");
        return doubling(0ms)(request, abandon);
      },
      stop, log);
  EXPECT_EQ(stats.completed, 1) << log.str();
  EXPECT_EQ(psql("SELECT state || ' ' || (error LIKE '%not JSON%') FROM evaluation_queue "
                 "WHERE request = 'this is not JSON'"),
            "failed true");
  std::optional<Outcome> rejected = queue->outcome(shapeless);
  EXPECT_EQ(rejected->state, JobState::kFailed);
  EXPECT_EQ(rejected->attempts, 1);  // not tried again: no worker could do better
  EXPECT_EQ((*queue->outcome(good)->result)["value"], 8);
}

TEST_F(QueueTest, HeartbeatsKeepALongEvaluation) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 5}});
  WorkerOptions options;
  options.url = url();
  options.lease = 1500ms;
  options.max_jobs = 1;
  std::atomic<bool> stop = false;
  std::ostringstream log;
  // Once the worker holds the job, a rival claims all the while: it would get the job if the
  // lease lapsed.
  std::atomic<bool> rival_got_it = false;
  std::jthread rival([&](std::stop_token token) {
    auto rival_queue = Queue::open(url());
    while (!token.stop_requested() && rival_queue->outcome(id)->state == JobState::kQueued) {
      std::this_thread::sleep_for(10ms);
    }
    while (!token.stop_requested()) {
      if (rival_queue->claim("rival", "cpu", 10s)) rival_got_it = true;
      std::this_thread::sleep_for(50ms);
    }
  });
  WorkerStats stats = run_worker(options, doubling(4000ms), stop, log);
  rival.request_stop();
  rival.join();
  EXPECT_EQ(stats.completed, 1) << log.str();
  EXPECT_FALSE(rival_got_it);
  EXPECT_EQ(queue->outcome(id)->attempts, 1);
  EXPECT_EQ((*queue->outcome(id)->result)["value"], 10);
}

// Runs a worker in a child process; returns its pid. The child never returns.
pid_t fork_worker(const WorkerOptions& options, const Evaluate& evaluate) {
  pid_t child = fork();
  if (child != 0) return child;
  int code = 0;
  try {
    std::atomic<bool> stop = false;
    std::ostringstream log;
    run_worker(options, evaluate, stop, log);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "worker: %s\n", error.what());
    code = 1;
  }
  _exit(code);  // no static destructors: the cluster belongs to the parent
}

int wait_for(pid_t child) {
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

TEST_F(QueueTest, TwoWorkersShareOneQueue) {
  auto queue = Queue::open(url());
  std::vector<int64_t> ids;
  for (int n = 0; n < 24; ++n) ids.push_back(queue->enqueue("cpu", Json{{"n", n}}));
  WorkerOptions options;
  options.url = url();
  options.poll = 20ms;
  options.idle_exit = 1s;
  options.name = "one";
  pid_t one = fork_worker(options, doubling(50ms));
  options.name = "two";
  pid_t two = fork_worker(options, doubling(50ms));
  EXPECT_EQ(wait_for(one), 0);
  EXPECT_EQ(wait_for(two), 0);
  std::set<std::string> workers;
  for (size_t n = 0; n < ids.size(); ++n) {
    std::optional<Outcome> outcome = queue->outcome(ids[n]);
    ASSERT_EQ(outcome->state, JobState::kDone);
    EXPECT_EQ(outcome->attempts, 1);
    EXPECT_EQ((*outcome->result)["value"], 2 * static_cast<int>(n));
    workers.insert(outcome->worker);
  }
  EXPECT_EQ(workers, (std::set<std::string>{"one", "two"}));
}

TEST_F(QueueTest, AWorkerKilledMidEvaluationIsRedoneOnceAndNothingIsLostOrDoubled) {
  TempDir dir;
  auto queue = Queue::open(url());
  std::vector<int64_t> ids;
  for (int n = 0; n < 3; ++n) ids.push_back(queue->enqueue("cpu", Json{{"n", n}}));
  // The doomed worker marks that it began job 0, then hangs in it until killed.
  std::filesystem::path began = dir.path() / "began";
  WorkerOptions doomed;
  doomed.url = url();
  doomed.name = "doomed";
  doomed.lease = 1s;
  pid_t child = fork_worker(doomed, [&](const Json& request, const std::atomic<bool>&) -> Json {
    std::ofstream(began) << request.dump();
    for (;;) std::this_thread::sleep_for(1s);
  });
  for (int wait = 0; wait < 500 && !std::filesystem::exists(began); ++wait) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(std::filesystem::exists(began));
  ::kill(child, SIGKILL);
  wait_for(child);

  WorkerOptions survivor;
  survivor.url = url();
  survivor.name = "survivor";
  survivor.poll = 50ms;
  survivor.idle_exit = 3s;  // longer than the dead lease
  std::atomic<bool> stop = false;
  std::ostringstream log;
  WorkerStats stats = run_worker(survivor, doubling(10ms), stop, log);
  EXPECT_EQ(stats.completed, 3) << log.str();
  for (size_t n = 0; n < ids.size(); ++n) {
    std::optional<Outcome> outcome = queue->outcome(ids[n]);
    ASSERT_EQ(outcome->state, JobState::kDone) << log.str();
    EXPECT_EQ(outcome->worker, "survivor");
    EXPECT_EQ((*outcome->result)["value"], 2 * static_cast<int>(n));
    EXPECT_EQ(outcome->attempts, n == 0 ? 2 : 1);  // only the killed evaluation was redone
  }
  QueueCounts counts = queue->counts();
  EXPECT_EQ(counts.done, 3);
  EXPECT_EQ(counts.queued + counts.leased + counts.failed, 0);
}

// Issue 46: a worker's death is noticed by its connections going, not by its lease running out:
// killed mid-evaluation with a lease of ten minutes, its job is redone after the grace (10 s) by
// the next claim, and the verdict and the job say why. Before, the survivor idled out with nothing
// to do, the job still leased to the dead worker.
TEST_F(QueueTest, AKilledWorkersJobIsRedoneWithoutWaitingForItsLease) {
  TempDir dir;
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 3}});
  std::filesystem::path began = dir.path() / "began";
  WorkerOptions doomed;
  doomed.url = url();
  doomed.name = "doomed";
  doomed.lease = 10min;
  pid_t child = fork_worker(doomed, [&](const Json& request, const std::atomic<bool>&) -> Json {
    std::ofstream(began) << request.dump();
    for (;;) std::this_thread::sleep_for(1s);
  });
  for (int wait = 0; wait < 500 && !std::filesystem::exists(began); ++wait) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(std::filesystem::exists(began));
  ::kill(child, SIGKILL);
  wait_for(child);

  WorkerOptions survivor;
  survivor.url = url();
  survivor.name = "survivor";
  survivor.poll = 200ms;
  survivor.max_jobs = 1;
  survivor.idle_exit = 60s;  // far more than the grace, far less than the dead lease
  std::atomic<bool> stop = false;
  std::ostringstream log;
  WorkerStats stats = run_worker(survivor, doubling(0ms), stop, log);
  EXPECT_EQ(stats.completed, 1) << log.str();
  std::optional<Outcome> outcome = queue->outcome(id);
  ASSERT_EQ(outcome->state, JobState::kDone) << log.str();
  EXPECT_EQ(outcome->worker, "survivor");
  EXPECT_EQ(outcome->attempts, 2);
  const std::string why = "doomed was gone (no connection) for 10.0 s during attempt 1";
  EXPECT_EQ(outcome->error, why);
  const Json& remote = (*outcome->result)["remote"];
  EXPECT_EQ(remote["worker"], "survivor");
  EXPECT_EQ(remote["job"], id);
  EXPECT_EQ(remote["attempt"], 2);
  EXPECT_EQ(remote["earlier"], why);
}

// Issue 46: workers are counted by their registration, whole: two evaluator platforms whose names
// share their first 63 bytes (all of a connection's name PostgreSQL keeps) are told apart.
// Counted by application_name, each platform had two workers.
TEST_F(QueueTest, WorkersAreCountedByIdentityNotByAConnectionsName) {
  auto queue = Queue::open(url());
  std::string folder = "command:/" + std::string(70, 'x');
  std::string first = folder + "/first.json", second = folder + "/second.json";
  std::atomic<bool> stop = false;
  std::ostringstream log_first, log_second;
  WorkerOptions options;
  options.url = url();
  options.platform = first;
  WorkerOptions other = options;
  other.platform = second;
  std::vector<std::jthread> workers;
  workers.emplace_back([&] { run_worker(options, doubling(0ms), stop, log_first); });
  workers.emplace_back([&] { run_worker(other, doubling(0ms), stop, log_second); });
  for (int wait = 0; wait < 100; ++wait) {
    if (queue->live_workers(first) >= 1 && queue->live_workers(second) >= 1) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(queue->live_workers(first), 1);
  EXPECT_EQ(queue->live_workers(second), 1);
  EXPECT_EQ(queue->live_workers(folder), 0);
  stop = true;
  workers.clear();
}

// A listening worker wakes on the enqueue's NOTIFY: it claims within a fraction of a second
// though its polling fallback is 30 s.
TEST_F(QueueTest, AnIdleWorkerWakesOnTheEnqueue) {
  auto queue = Queue::open(url());
  WorkerOptions options;
  options.url = url();
  options.poll = 30s;
  options.max_jobs = 1;
  std::atomic<bool> stop = false;
  std::ostringstream log;
  std::jthread worker([&] { run_worker(options, doubling(0ms), stop, log); });
  std::this_thread::sleep_for(500ms);  // asleep in wait()
  int64_t id = queue->enqueue("cpu", Json{{"n", 1}});
  worker.join();
  EXPECT_EQ(queue->outcome(id)->state, JobState::kDone) << log.str();
  double waited = std::stod(psql(fmt::format(
      "SELECT extract(epoch FROM claimed_at - enqueued_at) FROM evaluation_queue WHERE id = {}",
      id)));
  EXPECT_LT(waited, 5.0) << "the worker waited for its poll, not the NOTIFY";
}

// Issue 25: a run with remote workers evaluates as many kernels at once as workers are connected;
// it counts them by their claiming connections, per platform, while they are there.
TEST_F(QueueTest, TheLiveWorkersOfAPlatformAreCounted) {
  auto queue = Queue::open(url());
  EXPECT_EQ(queue->live_workers("cpu"), 0);
  std::atomic<bool> stop = false;
  std::ostringstream log_one, log_two, log_cuda;
  WorkerOptions options;
  options.url = url();
  std::vector<std::jthread> workers;
  workers.emplace_back([&] { run_worker(options, doubling(0ms), stop, log_one); });
  workers.emplace_back([&] { run_worker(options, doubling(0ms), stop, log_two); });
  WorkerOptions cuda = options;
  cuda.platform = "cuda";
  workers.emplace_back([&] { run_worker(cuda, doubling(0ms), stop, log_cuda); });
  // The three connect on their own threads: wait for all of them, the cuda one included.
  int64_t live = 0, live_cuda = 0;
  for (int wait = 0; wait < 100; ++wait) {
    live = queue->live_workers("cpu");
    live_cuda = queue->live_workers("cuda");
    if (live >= 2 && live_cuda >= 1) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(live, 2);
  EXPECT_EQ(live_cuda, 1);
  stop = true;
  workers.clear();  // joined: their connections closed
  for (int wait = 0; wait < 100 && (live = queue->live_workers("cpu")) > 0; ++wait) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(live, 0);
}

// SIGTERM (the stop flag): the evaluation is abandoned and the job handed back, its attempt not
// counted, so that the next worker claims it at once.
TEST_F(QueueTest, AStoppedWorkerHandsItsJobBack) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 3}});
  WorkerOptions options;
  options.url = url();
  options.name = "stopped";
  std::atomic<bool> stop = false;
  std::atomic<bool> began = false;
  std::ostringstream log;
  WorkerStats stats;
  std::jthread worker([&] {
    stats = run_worker(
        options,
        [&](const Json&, const std::atomic<bool>& abandon) -> Json {
          began = true;
          while (!abandon) std::this_thread::sleep_for(10ms);
          throw std::runtime_error("abandoned");
        },
        stop, log);
  });
  while (!began) std::this_thread::sleep_for(10ms);
  stop = true;
  worker.join();
  EXPECT_EQ(stats.released, 1) << log.str();
  std::optional<Outcome> outcome = queue->outcome(id);
  EXPECT_EQ(outcome->state, JobState::kQueued);
  EXPECT_EQ(outcome->attempts, 0);
  std::optional<Job> next = queue->claim("next", "cpu", 10s);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->attempt, 1);
}

task::Task silu() {
  return task::load_task(std::string(ACCELOPT_SOURCE_DIR) + "/bench/cpu/silu");
}

platform::EvalRequest silu_request(const task::Task& task) {
  platform::EvalRequest request;
  request.task = &task;
  request.workload = "small";
  request.source = "// a kernel";
  request.measure_time = false;
  return request;
}

// A worker that cannot see the task folder fails the job; another worker evaluates it. A job that
// fails on every worker is the candidate's verdict, EVALUATION_FAILED with the reasons.
TEST_F(QueueTest, AJobOneWorkerCannotDoIsDoneByAnotherAndOneNobodyCanDoIsAVerdict) {
  task::Task task = silu();
  RemotePlatformOptions remote_options;
  remote_options.url = url();
  RemotePlatform remote(remote_options);
  auto blind = [](const Json&, const std::atomic<bool>&) -> Json {
    throw UserError("task folder /no/such/place not found on this host");
  };
  auto passing = [](const Json&, const std::atomic<bool>&) {
    return platform::Verdict{}.to_json();  // PASSED
  };
  std::atomic<bool> stop = false;
  std::ostringstream log;
  auto worker_thread = [&](std::string name, Evaluate evaluate) {
    return std::jthread([&, name, evaluate] {
      WorkerOptions options;
      options.url = url();
      options.name = name;
      options.idle_exit = 2s;
      std::ostringstream own;
      run_worker(options, evaluate, stop, own);
    });
  };
  {
    std::jthread first = worker_thread("blind", blind);
    std::this_thread::sleep_for(300ms);  // the blind worker is first in line
    std::jthread second = worker_thread("sighted", passing);
    platform::Verdict verdict = remote.evaluate(silu_request(task));
    EXPECT_TRUE(verdict.passed()) << verdict.to_json().dump(1);
  }
  EXPECT_EQ(psql("SELECT worker || ' ' || attempts FROM evaluation_queue"), "sighted 2");
  {
    std::jthread one = worker_thread("one", blind);
    std::jthread two = worker_thread("two", blind);
    std::jthread three = worker_thread("three", blind);
    platform::EvalRequest request = silu_request(task);
    request.source = "// another kernel";
    platform::Verdict verdict = remote.evaluate(request);
    EXPECT_EQ(verdict.status, kernel::Status::kEvaluationFailed);
    EXPECT_NE(verdict.message.find("failed on every worker (3 attempts"), std::string::npos)
        << verdict.message;
    EXPECT_NE(verdict.message.find("not found on this host"), std::string::npos);
  }
}

// A run killed while its job was queued leaves the job there; the resumed run's identical request
// adopts it instead of queueing a second evaluation. Ctrl-C cancels the job instead.
TEST_F(QueueTest, AResumedRunAdoptsItsJobAndAnInterruptedOneCancelsIt) {
  task::Task task = silu();
  platform::EvalRequest request = silu_request(task);
  pid_t child = fork();
  if (child == 0) {
    RemotePlatformOptions options;
    options.url = url();
    RemotePlatform(options).evaluate(request);  // waits for ever: no worker yet
    _exit(0);
  }
  auto queue = Queue::open(url());
  for (int wait = 0; wait < 500 && queue->counts().queued == 0; ++wait) {
    std::this_thread::sleep_for(20ms);
  }
  ::kill(child, SIGKILL);
  wait_for(child);
  std::atomic<bool> stop = false;
  std::jthread worker([&] {
    WorkerOptions options;
    options.url = url();
    options.idle_exit = 2s;
    std::ostringstream log;
    run_worker(
        options,
        [](const Json&, const std::atomic<bool>&) { return platform::Verdict{}.to_json(); }, stop,
        log);
  });
  RemotePlatformOptions options;
  options.url = url();
  RemotePlatform resumed(options);
  EXPECT_TRUE(resumed.evaluate(request).passed());
  EXPECT_EQ(psql("SELECT count(*) FROM evaluation_queue"), "1");  // adopted, not queued again
  worker.join();

  std::atomic<bool> interrupt = true;
  request.source = "// interrupted";
  request.abandon = &interrupt;
  EXPECT_THROW(resumed.evaluate(request), platform::EvaluationAbandoned);
  EXPECT_EQ(psql("SELECT state || ' ' || error FROM evaluation_queue WHERE request LIKE "
                 "'%interrupted%'"),
            "failed cancelled: the run was interrupted");
}

}  // namespace
}  // namespace accelopt::queue
