#pragma once
// What went wrong reading a capture file, and where. Every message the
// analyzer prints about a bad file names the file and the byte offset so a
// user can look at the bytes (`xxd -s OFFSET run.pb`).
#include <cstdint>
#include <string>

namespace prof::analyzer {

struct ReadError {
  std::string path;
  uint64_t offset = 0;  // byte offset in the file where the problem starts
  std::string message;
  // False when nothing of the file was read (it does not exist, cannot be
  // opened): an offset would point into bytes nobody saw.
  bool has_offset = true;

  // "run.pb: byte 8: header truncated (3 of 12 bytes)";
  // "run.pb: cannot read: No such file or directory"
  std::string describe() const {
    return path + (has_offset ? ": byte " + std::to_string(offset) : std::string()) + ": " + message;
  }
};

}  // namespace prof::analyzer
