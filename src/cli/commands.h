// Every subcommand is declared in one place (register_commands) with its flags; each runs through a
// function of its own.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <functional>
#include <string>

namespace accelopt::cli {

// The action of the subcommand that was parsed; set by the callbacks, run after parsing.
class CommandTable {
 public:
  void select(std::function<int()> action) { action_ = std::move(action); }
  int run() const { return action_ ? action_() : 0; }

 private:
  std::function<int()> action_;
};

void register_commands(CLI::App& app, CommandTable& table);

// The exit code of eval, bench, optimize and resume when the machine was too busy to judge a
// kernel (MACHINE_BUSY) and none failed: try again later (EX_TEMPFAIL). A failure exits 1.
inline constexpr int kExitMachineBusy = 75;

// Number checks whose messages name the bound plainly ("must be above 0, not -1"); CLI11's own
// ranges print the largest double.
CLI::Validator positive_number();
CLI::Validator non_negative_number();

// The folder of `--task DIR`: DIR itself, or, when a relative DIR is not there, DIR in the
// accelopt folder this was built from (where `bench` finds its suite), so `--task bench/cpu/silu`
// works from any folder. Throws UserError naming both places (bench_commands.cpp).
std::filesystem::path find_task_directory(const std::string& given);

// bench, task dump (bench_commands.cpp).
void register_bench_commands(CLI::App& app, CommandTable& table);

// llm ping (llm_commands.cpp).
void register_llm_commands(CLI::App& app, CommandTable& table);

// optimize, resume (loop_commands.cpp).
void register_loop_commands(CLI::App& app, CommandTable& table);

// runs, show, export, compare, report, cost (report_commands.cpp).
void register_report_commands(CLI::App& app, CommandTable& table);

// study FILE, study status (study_command.cpp).
void register_study_commands(CLI::App& app, CommandTable& table);

// prompt (prompt_command.cpp).
void register_prompt_command(CLI::App& app, CommandTable& table);

// memory list|show|export|import|clear (memory_commands.cpp).
void register_memory_commands(CLI::App& app, CommandTable& table);

}  // namespace accelopt::cli
