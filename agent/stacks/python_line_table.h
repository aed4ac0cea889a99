#pragma once
// The source line of an instruction, from a code object's line table, decoded
// here rather than by PyCode_Addr2Line: the capture path may not call Python.
// Formats: CPython's Objects/lnotab_notes.txt (3.8-3.10) and
// Objects/locations.md (3.11+).
#include <cstddef>
#include <cstdint>

#include "stacks/python_layouts.h"

namespace prof {

// The line of the instruction at `byte_offset` (from the start of the code's
// instructions) in a table of `format`, starting from `first_line`
// (co_firstlineno). -1 when the table says the instruction has no line or
// does not reach it. Reads only table[0..size).
int python_line_of(LineTableFormat format, const uint8_t* table, size_t size, int first_line,
                   uint32_t byte_offset);

}  // namespace prof
