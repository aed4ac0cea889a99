// libFuzzer target: the capture file reader alone (magic, header, chunk
// framing, the generated wire decoder), faster per input than a whole view,
// so it goes deeper into the framing and the wire format. Any crash or sanitizer report is a finding; an
// error must name where in the file it is.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/record_decoder.h"

namespace {
int g_fd = -1;
std::string g_path;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_fd = memfd_create("capture.pb", 0);
  if (g_fd < 0) std::abort();
  g_path = "/proc/self/fd/" + std::to_string(g_fd);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (ftruncate(g_fd, 0) != 0 || pwrite(g_fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  prof::analyzer::RecordDecoder reader;
  if (!reader.open(g_path)) return 0;
  prof::analyzer::recorded::Chunk chunk;
  uint64_t last_offset = 0;
  for (;;) {
    const auto next = reader.next(chunk);
    if (next != prof::analyzer::RecordDecoder::Next::kChunk) break;
    // Chunks come in file order: an offset that goes back means the reader
    // re-read bytes (a loop on a corrupt length).
    if (reader.chunk_offset() < last_offset && reader.chunk_count() > 1) std::abort();
    last_offset = reader.chunk_offset();
  }
  return 0;
}
