#pragma once
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace prof::analyzer {

struct InfoOptions {
  std::vector<std::string> files;
};

CLI::App* add_info_command(CLI::App& app, InfoOptions& options);
int run_info_command(const InfoOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
