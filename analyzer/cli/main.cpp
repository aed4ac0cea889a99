// profanalyze: the offline reader of libprof capture files.
#include <iostream>
#include <string>
#include <vector>

#include "cli/prof_analyze.h"
#include "io/record_decoder.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  prof::analyzer::silence_protobuf_logging();
  const std::vector<std::string> args(argv, argv + argc);
  return prof::analyzer::run_prof_analyze(args, std::cout, std::cerr);
}
