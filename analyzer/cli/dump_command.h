#pragma once
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

namespace prof::analyzer {

struct DumpOptions {
  std::string file;
};

CLI::App* add_dump_command(CLI::App& app, DumpOptions& options);
int run_dump_command(const DumpOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
