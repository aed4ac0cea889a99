// Writes the golden capture (GoldenCapture.h) to the path given, for the
// golden-output tests and for trying profanalyze by hand.
#include <cstdio>
#include <exception>

#include "GoldenCapture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden_capture OUT.pb\n");
    return 2;
  }
  try {
    prof::testing::CaptureFileWriter::writeFile(argv[1], prof::testing::goldenCaptureBytes());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_golden_capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
