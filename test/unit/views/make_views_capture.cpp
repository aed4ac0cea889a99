// Writes the capture of ViewsCapture.h to argv[1] (for the script tests).
// With a second argument, also a second process (rank 1, pid 4243) whose
// clock is 5 us ahead, to argv[2].
#include <cstdio>

#include "ViewsCapture.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_views_capture OUT.pb [RANK1.pb]\n");
    return 2;
  }
  prof::testing::CaptureFileWriter::writeFile(argv[1], prof::testing::viewsCapture());
  if (argc > 2) {
    prof::testing::ViewsCaptureOptions rank1;
    rank1.pid = 4243;
    rank1.rank = 1;
    rank1.realtimeOffsetNs += 5000;
    prof::testing::CaptureFileWriter::writeFile(argv[2], prof::testing::viewsCapture(rank1));
  }
  return 0;
}
