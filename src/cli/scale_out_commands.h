// The commands that spread evaluations over many machines through a shared PostgreSQL database
// (docs/scale-out.md): `worker` claims and evaluates queued kernels; `slurm` submits workers as an
// sbatch array.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace accelopt::cli {

// worker (worker_command.cpp).
void register_worker_command(CLI::App& app, CommandTable& table);

// slurm (slurm_command.cpp).
void register_slurm_command(CLI::App& app, CommandTable& table);

}  // namespace accelopt::cli
