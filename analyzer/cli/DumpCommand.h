#pragma once
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

namespace prof::analyzer {

struct DumpOptions {
  std::string file;
};

CLI::App* addDumpCommand(CLI::App& app, DumpOptions& options);
int runDumpCommand(const DumpOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
