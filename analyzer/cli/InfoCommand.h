#pragma once
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace prof::analyzer {

struct InfoOptions {
  std::vector<std::string> files;
};

CLI::App* addInfoCommand(CLI::App& app, InfoOptions& options);
int runInfoCommand(const InfoOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
