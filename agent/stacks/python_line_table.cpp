#include "stacks/python_line_table.h"

namespace prof {
namespace {

// co_lnotab (3.8, 3.9): (address increment, signed line increment) pairs; the
// line of an address is the sum of the line increments of every pair whose
// cumulative address is at or before it.
int lnotab_line(const uint8_t* table, size_t size, int first_line, uint32_t byte_offset) {
  int line = first_line;
  uint32_t address = 0;
  for (size_t i = 0; i + 1 < size; i += 2) {
    address += table[i];
    if (address > byte_offset) break;
    line += static_cast<int8_t>(table[i + 1]);
  }
  return line;
}

// co_linetable (3.10): (length in bytes, signed line delta) pairs, each a
// range [start, start + length) of that line; a delta of -128 means "no line"
// for the range and leaves the running line unchanged.
int linetable_line(const uint8_t* table, size_t size, int first_line, uint32_t byte_offset) {
  int line = first_line;
  uint32_t end = 0;
  for (size_t i = 0; i + 1 < size; i += 2) {
    const uint32_t start = end;
    end = start + table[i];
    const int8_t delta = static_cast<int8_t>(table[i + 1]);
    int range_line = -1;
    if (delta != -128) {
      line += delta;
      range_line = line;
    }
    if (start <= byte_offset && byte_offset < end) return range_line;
  }
  return -1;
}

// Location table (3.11+): entries whose first byte has bit 7 set, bits 3-6 a
// code and bits 0-2 the length in code units minus one; the other bytes of an
// entry have bit 7 clear. Only the start line matters here.
uint32_t read_varint(const uint8_t* table, size_t size, size_t& i) {
  uint32_t value = 0;
  uint32_t shift = 0;
  while (i < size) {
    const uint8_t byte = table[i++];
    value |= static_cast<uint32_t>(byte & 63) << shift;
    if ((byte & 64) == 0) break;
    shift += 6;
    if (shift > 30) break;  // malformed: never shift past 32 bits
  }
  return value;
}

int32_t read_signed_varint(const uint8_t* table, size_t size, size_t& i) {
  const uint32_t raw = read_varint(table, size, i);
  const auto magnitude = static_cast<int32_t>(raw >> 1);
  return (raw & 1) ? -magnitude : magnitude;
}

int locations_line(const uint8_t* table, size_t size, int first_line, uint32_t byte_offset) {
  const uint32_t unit = byte_offset / 2;  // _Py_CODEUNIT is two bytes
  int line = first_line;
  uint32_t end = 0;
  size_t i = 0;
  while (i < size) {
    const uint8_t first = table[i++];
    if ((first & 128) == 0) continue;  // not an entry start: resynchronise
    const uint32_t start = end;
    end = start + (first & 7) + 1;
    const int code = (first >> 3) & 15;
    bool has_line = true;
    if (code == 15) {
      has_line = false;  // no location
    } else if (code == 13 || code == 14) {
      line += read_signed_varint(table, size, i);  // no-column and long forms
    } else if (code >= 10) {
      line += code - 10;  // one-line forms 0, 1, 2
    }
    // Short forms (0-9) keep the line. Skip the rest of the entry.
    while (i < size && (table[i] & 128) == 0) ++i;
    if (start <= unit && unit < end) return has_line ? line : -1;
  }
  return -1;
}

}  // namespace

int python_line_of(LineTableFormat format, const uint8_t* table, size_t size, int first_line,
                   uint32_t byte_offset) {
  if (table == nullptr) return -1;
  switch (format) {
    case LineTableFormat::lnotab:
      return lnotab_line(table, size, first_line, byte_offset);
    case LineTableFormat::linetable:
      return linetable_line(table, size, first_line, byte_offset);
    case LineTableFormat::locations:
      return locations_line(table, size, first_line, byte_offset);
  }
  return -1;
}

}  // namespace prof
