#pragma once
// The capture files a command line names. A run of several processes
// leaves several files side by side (run.pb, run.<pid>.pb, ...); a folder or
// a quoted glob names them all, so `profanalyze report out/` or
// `profanalyze trace 'run*.pb'` reads the run as one.
#include <ostream>
#include <string>
#include <vector>

namespace prof::analyzer {

// Each argument as given, a folder as its *.pb files and a pattern with
// * ? or [ that names no file as the files it matches (glob(3)); each
// expansion sorted by name. False, with the reason on `err`, when a folder
// holds no capture or a pattern matches nothing.
bool expand_capture_paths(const std::vector<std::string>& arguments, std::vector<std::string>& paths,
                        std::ostream& err);

}  // namespace prof::analyzer
