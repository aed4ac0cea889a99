// profanalyze: the offline reader of libprof capture files.
#include <iostream>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "cli/prof_analyze.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // A chunk that does not parse is reported by the reader, with its offset;
  // libprotobuf's own log line about it would only add noise.
  google::protobuf::SetLogHandler(nullptr);
  const std::vector<std::string> args(argv, argv + argc);
  return prof::analyzer::run_prof_analyze(args, std::cout, std::cerr);
}
