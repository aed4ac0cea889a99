#pragma once
// Names native frames by their function, read from the recorded modules'
// ELF files (ElfSymbolizer), for `stacks`, `flamegraph` and the report's
// Source Location column. Frames it cannot name keep the module+offset form
// of ModuleOffsetFrameNamer, so an unknown frame is still findable with
// addr2line; Python frames keep torch's "file.py(12): function".
//
// Optionally appends " (file.c:42)" from addr2line (binutils), when asked
// and when the module has line tables; addr2line is run once per module
// for all of a Run's addresses (prefetch_lines), never once per frame.
//
// Not thread-safe (ElfSymbolizer is not): one instance per thread.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "symbols/elf_symbolizer.h"
#include "views/frame_names.h"

namespace prof::analyzer {

class SymbolizingFrameNamer final : public FrameNamer {
 public:
  SymbolizingFrameNamer() = default;

  std::string name(const Run& run, const Frame& frame) const override;

  // Runs addr2line over every native frame of `run` that lies in a module
  // readable here with the recorded build id, so that name() appends
  // " (file:line)" where the line is known. False when addr2line could not
  // be run on some such module (its names then stay without lines).
  bool prefetch_lines(const Run& run);

  ElfSymbolizer& symbolizer() { return symbolizer_; }

 private:
  // Symbolizer and caches are mutable: naming a frame does not change what
  // the namer is, only what it remembers.
  mutable ElfSymbolizer symbolizer_;
  // Keyed by (module path, file virtual address of the call), not by frame,
  // so one namer serves every Run (a window is a copy of the run).
  mutable std::map<std::pair<std::string, uint64_t>, std::string> names_;
  std::map<std::pair<std::string, uint64_t>, std::string> lines_;  // "file.c:42"
  ModuleOffsetFrameNamer fallback_;
};

// The namer a command hands its views: symbols (and file:line, read once
// for the whole run, when `lines`) unless `no_symbols` asks for the
// module+0xOFFSET form. `lines_warning` goes to `err` when addr2line failed
// on some module.
class CommandFrameNamer {
 public:
  CommandFrameNamer(const Run& run, bool no_symbols, bool lines, std::ostream& err, const char* lines_warning) :
      no_symbols_(no_symbols) {
    if (lines && !no_symbols && !symbolizing_.prefetch_lines(run)) err << lines_warning;
  }
  const FrameNamer& namer() const {
    return no_symbols_ ? static_cast<const FrameNamer&>(plain_) : symbolizing_;
  }

 private:
  const bool no_symbols_;
  SymbolizingFrameNamer symbolizing_;
  const ModuleOffsetFrameNamer plain_;
};

// The file:line lines of `addr2line -e module ADDR...`, one per address in
// order ("??:0" and "??:?" become ""); empty when addr2line did not run.
std::vector<std::string> addr2line_lines(const std::string& module, const std::vector<uint64_t>& file_addresses);

}  // namespace prof::analyzer
