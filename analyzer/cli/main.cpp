// profanalyze: the offline reader of libprof capture files.
#include <iostream>
#include <string>
#include <vector>

#include "cli/prof_analyze.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::vector<std::string> args(argv, argv + argc);
  return prof::analyzer::run_prof_analyze(args, std::cout, std::cerr);
}
