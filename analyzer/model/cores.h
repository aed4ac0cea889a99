#pragma once
// The cores a step of the analyzer runs on: `jobs` as the command was
// given it (PROFANALYZE_JOBS, cli's load_jobs()), 0 meaning every core.
#include <algorithm>
#include <thread>

namespace prof::analyzer {

inline unsigned cores_for(unsigned jobs) { return jobs != 0 ? jobs : std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace prof::analyzer
