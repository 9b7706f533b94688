// Reading the models' answers: kernels out of prose and fences, plans out of one or many, insights
// out of JSON or sections. Everything here is tolerant of the ways models format answers, and a
// garbage answer is a value that says why (never an exception): the search counts it and moves on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "roles/roles.h"

namespace accelopt::agents {

// The kernel in `answer`: among fenced blocks (```cpp, ```c++, ```, ~~~) the one that defines
// `entry_point` (the last such block, preferring one that includes "accelopt_task.h"); without
// fences, the code between the prose. Adds `#include "accelopt_task.h"` when missing. Without a
// definition of the entry point, `source` is empty and `parse_error` says what was found.
// `truncated`: the answer was cut at the token limit (mentioned in the error).
roles::Implementation extract_kernel(const std::string& answer, const std::string& entry_point,
                                     bool truncated = false);

// Whether `code` defines (not only declares or calls) a function named `name`.
bool defines_function(const std::string& code, const std::string& name);

// `text` without <think>…</think> (or <thinking>) blocks some models inline in their content.
std::string strip_thinking(const std::string& text);

// One plan from an answer asked for one: the text, trimmed, without thinking.
std::string clean_plan(const std::string& answer);

// The plans of an answer asked for several: split at "## Plan 1: …" style headings (or a JSON
// array of strings/objects, or a top-level numbered list); the whole answer when none is found.
std::vector<std::string> split_plans(const std::string& answer);

// Jaccard similarity of the two texts' word 3-shingles after normalizing case and punctuation,
// in [0, 1]; 1 for texts that differ only in formatting.
double plan_similarity(const std::string& a, const std::string& b);

// `plans` in order, without empty ones and without any whose similarity to a kept one reaches
// `threshold`.
std::vector<roles::Plan> drop_near_duplicates(std::vector<roles::Plan> plans, double threshold);

struct SummaryAnswer {
  std::optional<roles::Insight>
      insight;                   // title, description, snippets; speedups left to the caller
  bool no_optimization = false;  // the model said there is nothing to keep
  std::string error;             // neither: why the answer could not be read
};

// Reads a summarizer answer: a JSON object {title, description, before, after} (fenced or bare,
// raw newlines inside strings forgiven), or "Title:/Description:/Before:/After:" sections, or
// "NO OPTIMIZATION FOUND" and similar.
SummaryAnswer parse_summary(const std::string& answer);

}  // namespace accelopt::agents
