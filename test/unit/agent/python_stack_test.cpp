// Mixed stacks (python_stack.h) and line tables (python_line_table.h) on
// hand-built inputs; the integration tests check both against real CPythons.
#include <catch2/catch.hpp>

#include <vector>

#include "stacks/python_line_table.h"
#include "record/python_stack.h"

namespace prof {
namespace {

PythonFrame py(uint32_t code, int32_t line, bool entry) {
  return PythonFrame{code | (entry ? PythonFrame::kEntryBit : 0u), line};
}

std::vector<uint64_t> merge(const std::vector<uint64_t>& native, const std::vector<PythonFrame>& python) {
  std::vector<uint64_t> out(native.size() + python.size());
  out.resize(merge_python_stack(native.data(), static_cast<uint32_t>(native.size()), python.data(),
                                static_cast<uint32_t>(python.size()), 0x1000, 0x2000, out.data()));
  return out;
}

TEST_CASE("each eval loop frame is replaced by the run of Python frames it ran, in order") {
  // Leaf first: CUDA call, ctypes, eval loop (runs f, g), C builtin, eval loop (runs main), main.
  const std::vector<uint64_t> native = {0x9000, 0x8000, 0x1500, 0x7000, 0x1800, 0x500};
  const std::vector<PythonFrame> python = {py(3, 30, false), py(2, 20, true), py(1, 10, true)};
  const std::vector<uint64_t> want = {0x9000, 0x8000, python_frame_key(python[0]), python_frame_key(python[1]),
                                      0x7000, python_frame_key(python[2]), 0x500};
  CHECK(merge(native, python) == want);
}

TEST_CASE("a return address just past the eval loop's end is still inside it") {
  // Return address 0x2000 is the byte after a call at 0x1fff.
  const std::vector<PythonFrame> python = {py(1, 5, true)};
  CHECK(merge({0x2000}, python) == std::vector<uint64_t>{python_frame_key(python[0])});
  CHECK(merge({0x2001}, python) == std::vector<uint64_t>{0x2001, python_frame_key(python[0])});
}

TEST_CASE("Python frames with no eval loop frame left go at the root end; none: Python alone") {
  const std::vector<PythonFrame> python = {py(2, 7, true), py(1, 3, true)};
  CHECK(merge({0x9000, 0x1100}, python) ==
        std::vector<uint64_t>{0x9000, python_frame_key(python[0]), python_frame_key(python[1])});
  CHECK(merge({}, python) == std::vector<uint64_t>{python_frame_key(python[0]), python_frame_key(python[1])});
  // More eval frames than runs (a thread's outer loop we could not read): kept native.
  CHECK(merge({0x1100, 0x1200}, {python[0]}) == std::vector<uint64_t>{python_frame_key(python[0]), 0x1200});
}

TEST_CASE("a Python frame key keeps its code id and line, and never looks like an address") {
  const uint64_t key = python_frame_key(py(12345, 678, true));
  CHECK(is_python_frame_key(key));
  CHECK(python_key_code_id(key) == 12345);
  CHECK(python_key_line(key) == 678);
  CHECK(python_key_line(python_frame_key(py(1, -1, false))) == -1);
  CHECK_FALSE(is_python_frame_key(0x7fffffffffffull));
}

TEST_CASE("co_lnotab (3.8, 3.9): the line of the last pair at or before the offset") {
  // Offsets 0 -> line 10, 6 -> 11, 50 -> 16, then a 300-byte jump split in two.
  const uint8_t table[] = {6, 1, 44, 5, 255, 0, 45, 2};
  CHECK(python_line_of(LineTableFormat::lnotab, table, sizeof table, 10, 0) == 10);
  CHECK(python_line_of(LineTableFormat::lnotab, table, sizeof table, 10, 8) == 11);
  CHECK(python_line_of(LineTableFormat::lnotab, table, sizeof table, 10, 50) == 16);
  CHECK(python_line_of(LineTableFormat::lnotab, table, sizeof table, 10, 349) == 16);
  CHECK(python_line_of(LineTableFormat::lnotab, table, sizeof table, 10, 350) == 18);
}

TEST_CASE("co_linetable (3.10): ranges of (length, line delta), -128 for no line") {
  const uint8_t table[] = {4, 1, 6, 0x80, 10, 2};  // [0,4) line 11, [4,10) none, [10,20) line 13
  CHECK(python_line_of(LineTableFormat::linetable, table, sizeof table, 10, 2) == 11);
  CHECK(python_line_of(LineTableFormat::linetable, table, sizeof table, 10, 6) == -1);
  CHECK(python_line_of(LineTableFormat::linetable, table, sizeof table, 10, 12) == 13);
  CHECK(python_line_of(LineTableFormat::linetable, table, sizeof table, 10, 20) == -1);
}

TEST_CASE("location table (3.11+): short, one-line, no-column, long and no-location entries") {
  const uint8_t table[] = {
      0x80 | (11 << 3) | 1, 4, 8,  // one-line form +1, 2 code units: line 21
      0x80 | (0 << 3) | 0, 0x12,   // short form, 1 unit: same line 21
      0x80 | (13 << 3) | 2, 6,     // no columns, 3 units, line delta svarint(6) = +3: line 24
      0x80 | (15 << 3) | 0,        // no location, 1 unit
      0x80 | (14 << 3) | 0, 3, 0, 1, 2,  // long form, 1 unit, delta -1: line 23
  };
  const auto line = [&](uint32_t unit) {
    return python_line_of(LineTableFormat::locations, table, sizeof table, 20, unit * 2);
  };
  CHECK(line(0) == 21);
  CHECK(line(1) == 21);
  CHECK(line(2) == 21);
  CHECK(line(3) == 24);
  CHECK(line(5) == 24);
  CHECK(line(6) == -1);
  CHECK(line(7) == 23);
  CHECK(line(8) == -1);
}

}  // namespace
}  // namespace prof
