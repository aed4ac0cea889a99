// SymbolizingFrameNamer on this test program itself: a frame whose return
// address lies in a known function is named by it, demangled.
#include <catch2/catch.hpp>
#include <link.h>
#include <unistd.h>

#include <climits>

#include "analyzer_test_support.h"
#include "symbols/symbolizing_frame_namer.h"

namespace prof::testing {
// Not static and not inlined: it must be in .symtab under this name.
[[gnu::noinline]] int symbolizer_target(int x) {
  asm volatile("" ::: "memory");
  return x * 3 + 1;
}
}  // namespace prof::testing

namespace {

std::string executable_path() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  REQUIRE(n > 0);
  return std::string(path, static_cast<size_t>(n));
}

// The main program's load bias: the first object dl_iterate_phdr reports.
uint64_t executable_bias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;
        return 1;
      },
      &bias);
  return bias;
}

}  // namespace

TEST_CASE("native frames are named by function from the module's symbol table") {
  using namespace prof::analyzer;
  Run run;
  run.modules.push_back(Module{executable_path(), 0, 0, executable_bias(), ""});
  Frame inside;
  inside.kind = FrameKind::kNative;
  inside.module = 0;
  // A return address 1 byte into the function: the call is at address - 1,
  // its first byte (an optimized build makes it only a few bytes long).
  inside.address = reinterpret_cast<uint64_t>(&prof::testing::symbolizer_target) + 1;
  Frame unknown = inside;
  unknown.module = -1;
  unknown.address = 0x1234;
  Frame python;
  python.kind = FrameKind::kPython;
  python.function = run.intern("forward");
  python.file = run.intern("model.py");
  python.line = 7;

  SymbolizingFrameNamer namer;
  CHECK(namer.name(run, inside) == "prof::testing::symbolizer_target(int)");
  CHECK(namer.name(run, inside) == "prof::testing::symbolizer_target(int)");  // cached
  CHECK(namer.name(run, unknown) == "0x1234");
  CHECK(namer.name(run, python) == "model.py(7): forward");

  // A module that is gone: module+offset, as without symbols.
  run.modules.push_back(Module{"/nonexistent/libgone.so", 0, 0, 0x1000, ""});
  Frame gone = inside;
  gone.module = 1;
  gone.address = 0x1500;
  CHECK(namer.name(run, gone) == "libgone.so+0x500");

  // The recorded build id must match the file's: a replaced file is not trusted.
  run.modules[0].build_id = std::string("\x01\x02\x03\x04", 4);
  SymbolizingFrameNamer strict;
  CHECK(strict.name(run, inside).rfind(executable_path().substr(executable_path().rfind('/') + 1) + "+0x", 0) == 0);
  CHECK(prof::testing::symbolizer_target(1) == 4);
}

TEST_CASE("addr2line gives nothing for addresses without line information") {
  using namespace prof::analyzer;
  const auto lines = addr2line_lines(executable_path(), {0x1});
  // addr2line is part of binutils, which the build needs anyway; when it is
  // missing the result is empty, never a wrong line.
  if (!lines.empty()) CHECK(lines == std::vector<std::string>{""});
  CHECK(addr2line_lines("/nonexistent/module", {0x1000}).size() <= 1);
}

TEST_CASE("--lines appends file:line where the module has debug info") {
  using namespace prof::analyzer;
  Run run;
  run.modules.push_back(Module{executable_path(), 0, 0, executable_bias(), ""});
  Frame inside;
  inside.kind = FrameKind::kNative;
  inside.module = 0;
  inside.address = reinterpret_cast<uint64_t>(&prof::testing::symbolizer_target) + 1;
  run.frames.push_back(inside);
  SymbolizingFrameNamer namer;
  const bool ran = namer.prefetch_lines(run);
  const std::string name = namer.name(run, inside);
  CHECK(name.rfind("prof::testing::symbolizer_target(int)", 0) == 0);
  // Built without -g there is no line to add; with it, this file's.
  if (ran && name != "prof::testing::symbolizer_target(int)")
    CHECK(name.find("/symbolizing_frame_namer_test.cpp:") != std::string::npos);
}
