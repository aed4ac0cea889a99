// Writes advise's golden capture (advise_capture.h) to the path given.
#include <cstdio>
#include <exception>

#include "advise_capture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_advise_capture OUT.pb\n");
    return 2;
  }
  try {
    prof::testing::CaptureFileWriter::write_file(argv[1], prof::testing::advise_capture_bytes());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_advise_capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
