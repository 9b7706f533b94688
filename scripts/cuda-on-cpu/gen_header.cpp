// Prints the CUDA kernel header accelopt generates for a task folder and workload (check.py).
#include <iostream>
#include "task/abi.h"
#include "task/task.h"
int main(int argc, char** argv) {
  auto task = accelopt::task::load_task(argv[1], ".cu");
  std::cout << accelopt::task::generate_kernel_header(task, task.workload(argv[2]));
}
