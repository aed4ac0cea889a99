// Writes a capture whose names hold every byte a JSON writer must take care
// of (quotes, backslashes, control characters, invalid UTF-8), for
// check_json_escaping.py: ranges, API calls, kernels and a mark named so.
#include <cstdio>
#include <exception>
#include <string>

#include "capture_file_writer.h"

namespace {

using prof::testing::CaptureFileWriter;
using prof::testing::ChunkBuilder;

// Kept in step with NAMES in check_json_escaping.py.
const std::string kNames[] = {
    "quote\"back\\slash",
    std::string("ctl\x01\x1f\ttab\nnl\x7f", 14),
    "bad\xff\xfe utf8 \xc3\x28 \xe2\x82!",
    "ok \xc3\xa9 \xe2\x9c\x93",
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_escape_capture OUT.pb\n");
    return 2;
  }
  try {
    ChunkBuilder c(1000);
    c.process(42, 1000);
    c.thread(7, kNames[0]);
    uint64_t t = 1000;
    uint32_t correlation = 1;
    for (uint64_t i = 0; i < 4; ++i) {
      const uint64_t id = i + 1;
      c.string(id, kNames[i]);
      c.range(7, id, t, t + 900);
      c.api_call(7, id, t + 100, t + 200, correlation);
      c.kernel(id, t + 300, t + 400, correlation);
      c.mark(7, id, t + 500);
      t += 1000;
      ++correlation;
    }
    c.process_end(t);
    CaptureFileWriter().chunk(c.finish()).write_to(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_escape_capture: %s\n", e.what());
    return 1;
  }
  return 0;
}
