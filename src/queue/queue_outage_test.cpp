// The queue through database outages, against a real PostgreSQL server (slow: the server is
// stopped and started, reconnection windows waited out): every connection killed under a worker,
// the server restarted under one, and a database that stays away ending with a clear error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <thread>

#include "queue/queue.h"
#include "queue/worker.h"
#include "store/backend.h"
#include "store/postgres_test_fixture.h"

namespace accelopt::queue {
namespace {

using namespace std::chrono_literals;

using QueueOutageTest = store::PostgresTest;

Json doubled(const Json& request) {
  return Json{{"status", "PASSED"}, {"value", request.at("n").get<int>() * 2}};
}

// Every connection of the database is ended while a worker evaluates (its heartbeat's too): the
// worker reconnects, keeps its lease and records the verdict; nothing escapes its threads.
TEST_F(QueueOutageTest, AWorkerSurvivesItsConnectionsBeingKilled) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 6}});
  WorkerOptions options;
  options.url = url();
  options.lease = 600ms;
  options.max_jobs = 1;
  std::atomic<bool> stop = false;
  std::ostringstream log;
  WorkerStats stats = run_worker(
      options,
      [&](const Json& request, const std::atomic<bool>&) {
        for (int kill = 0; kill < 3; ++kill) {
          psql(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
              "current_database() AND pid <> pg_backend_pid()");
          std::this_thread::sleep_for(400ms);
        }
        return doubled(request);
      },
      stop, log);
  EXPECT_EQ(stats.completed, 1) << log.str();
  std::optional<Outcome> outcome = Queue::open(url())->outcome(id);
  EXPECT_EQ(outcome->state, JobState::kDone);
  EXPECT_EQ(outcome->attempts, 1);
}

// The server itself goes down for a few seconds, longer than the lease: the worker's verdict is
// kept and recorded once it is back, and the lease nobody else claimed is taken back.
TEST_F(QueueOutageTest, AWorkerCarriesOnAcrossAServerRestart) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 7}});
  WorkerOptions options;
  options.url = url();
  options.lease = 1500ms;
  options.max_jobs = 1;
  std::atomic<bool> stop = false;
  std::ostringstream log;
  WorkerStats stats = run_worker(
      options,
      [&](const Json& request, const std::atomic<bool>&) {
        cluster().stop_server();
        std::this_thread::sleep_for(3s);
        cluster().start_server();
        return doubled(request);
      },
      stop, log);
  EXPECT_EQ(stats.completed, 1) << log.str();
  std::optional<Outcome> outcome = queue->outcome(id);  // this connection reconnects too
  EXPECT_EQ(outcome->state, JobState::kDone);
  EXPECT_EQ((*outcome->result)["value"], 14);
}

// Issue 46: the server is down for longer than the holder's lease while another worker waits for
// work, and the holder comes back after it (its role may not log in until the idle worker is
// back and has claimed). The holder is back within its grace, so it keeps its job: one evaluation,
// not two. Before, the idle worker expired the lease as soon as it was back and evaluated the job
// again, and the holder's verdict was dropped.
TEST_F(QueueOutageTest, AHolderBackWithinItsGraceKeepsItsJobThoughItsLeaseRanOut) {
  auto queue = Queue::open(url());
  int64_t id = queue->enqueue("cpu", Json{{"n", 8}});
  psql(
      "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'accelopt_holder') THEN "
      "CREATE ROLE accelopt_holder LOGIN SUPERUSER; END IF; END $$");
  psql("ALTER ROLE accelopt_holder LOGIN");
  std::atomic<int> evaluations = 0;
  auto counted = [&](const Json& request, const std::atomic<bool>&) {
    ++evaluations;
    return doubled(request);
  };
  WorkerOptions idler;
  idler.url = url();
  idler.name = "idle";
  idler.poll = 100ms;
  std::atomic<bool> stop_idler = false;
  std::ostringstream idle_log;
  std::optional<std::jthread> idle;

  WorkerOptions holder;
  holder.url = url().substr(0, url().rfind("user=")) + "user=accelopt_holder";
  holder.name = "holder";
  holder.lease = 6s;  // a grace of 6 s; the holder is back about 2 s after the idle worker
  holder.max_jobs = 1;
  std::atomic<bool> stop = false;
  std::ostringstream log;
  WorkerStats stats = run_worker(
      holder,
      [&](const Json& request, const std::atomic<bool>& abandon) {
        idle.emplace([&] { run_worker(idler, counted, stop_idler, idle_log); });
        for (int wait = 0; wait < 200 && queue->live_workers("cpu") < 2; ++wait) {
          std::this_thread::sleep_for(50ms);
        }
        psql("ALTER ROLE accelopt_holder NOLOGIN");  // its sessions stay; it cannot come back
        cluster().stop_server();
        std::this_thread::sleep_for(8s);  // past the lease
        cluster().start_server();
        for (int wait = 0; wait < 400 && queue->live_workers("cpu") < 1; ++wait) {
          std::this_thread::sleep_for(50ms);  // until the idle worker is back
        }
        std::this_thread::sleep_for(1s);  // it claims every 100 ms meanwhile
        psql("ALTER ROLE accelopt_holder LOGIN");
        std::this_thread::sleep_for(2s);
        return counted(request, abandon);
      },
      stop, log);
  stop_idler = true;
  idle.reset();
  EXPECT_EQ(stats.completed, 1) << log.str() << idle_log.str();
  EXPECT_EQ(evaluations, 1) << log.str() << idle_log.str();
  std::optional<Outcome> outcome = queue->outcome(id);
  EXPECT_EQ(outcome->state, JobState::kDone);
  EXPECT_EQ(outcome->worker, "holder");
  EXPECT_EQ(outcome->attempts, 1);
}

// Past the reconnection window a call gives up with a clear error, the password not in it.
TEST_F(QueueOutageTest, AnUnreachableDatabaseEndsWithAClearErrorAfterTheWindow) {
  std::string secret_url = url() + "&password=hunter2hunter2";
  ::setenv("ACCELOPT_DB_RETRY_SECONDS", "1", 1);
  auto queue = Queue::open(secret_url);
  ::unsetenv("ACCELOPT_DB_RETRY_SECONDS");
  cluster().stop_server();
  std::string message;
  try {
    queue->enqueue("cpu", Json{{"n", 1}});
  } catch (const store::ConnectionLost& error) {
    message = error.what();
  }
  cluster().start_server();
  EXPECT_NE(message.find("could not be reached again for 1 s"), std::string::npos) << message;
  EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
}

}  // namespace
}  // namespace accelopt::queue
