// Writes the golden capture (golden_capture.h) to the path given, for the
// golden-output tests and for trying profanalyze by hand.
#include <cstdio>
#include <exception>

#include "golden_capture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden_capture OUT.pb\n");
    return 2;
  }
  try {
    prof::testing::CaptureFileWriter::write_file(argv[1], prof::testing::golden_capture_bytes());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_golden_capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
