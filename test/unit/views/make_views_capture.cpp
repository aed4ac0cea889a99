// Writes the capture of views_capture.h to argv[1] (for the script tests).
// With a second argument, also a second process (rank 1, pid 4243) whose
// clock is 5 us ahead, to argv[2].
#include <cstdio>

#include "views_capture.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_views_capture OUT.pb [RANK1.pb]\n");
    return 2;
  }
  prof::testing::CaptureFileWriter::write_file(argv[1], prof::testing::views_capture());
  if (argc > 2) {
    prof::testing::ViewsCaptureOptions rank1;
    rank1.pid = 4243;
    rank1.rank = 1;
    rank1.realtime_offset_ns += 5000;
    prof::testing::CaptureFileWriter::write_file(argv[2], prof::testing::views_capture(rank1));
  }
  return 0;
}
