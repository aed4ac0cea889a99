// Bytes per record in capture files, by record type: each element of a
// chunk's record lists costs its tag, its length varint and its body, exactly
// as it lies in the file. Definitions (strings, frames, stacks, modules,
// threads, process...) and framing (magic, header, chunk lengths, time bases)
// are totalled apart, so that "bytes per record" is the records' own cost
// and the file's total is accounted for to the byte.
//
// Usage: bench_record_sizes FILE...
// Prints tab-separated lines: kind, name, records, bytes.
#include <google/protobuf/io/coded_stream.h>
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <map>
#include <string>

#include "io/capture_reader.h"
#include "proto/prof.pb.h"

namespace {

using prof::proto::Chunk;

struct Tally {
  uint64_t records = 0;
  uint64_t bytes = 0;
};

// What one element of a repeated message field takes in the file.
template <typename Message>
uint64_t element_bytes(int field_number, const Message& message) {
  const uint64_t body = message.ByteSizeLong();
  const uint64_t tag = field_number < 16 ? 1 : 2;
  return tag + google::protobuf::io::CodedOutputStream::VarintSize64(body) + body;
}

std::string api_call_name(const prof::proto::ApiCall& call) {
  std::string name = call.domain() == prof::proto::DRIVER ? "API call, driver" : "API call, runtime";
  if (call.has_launch()) name += ", launch args";
  if (call.has_transfer()) name += ", copy args";
  if (call.stack_id() != 0) name += ", stack";
  return name;
}

template <typename Field, typename Name>
void tally_list(std::map<std::string, Tally>& records, int field_number, const Field& list, Name&& name) {
  for (const auto& element : list) {
    Tally& tally = records[name(element)];
    ++tally.records;
    tally.bytes += element_bytes(field_number, element);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  std::map<std::string, Tally> records;
  uint64_t file_bytes = 0, record_bytes = 0;
  for (int i = 1; i < argc; ++i) {
    prof::analyzer::CaptureReader reader;
    if (!reader.open(argv[i])) {
      fprintf(stderr, "bench_record_sizes: %s: cannot read\n", argv[i]);
      return 1;
    }
    struct stat info {};
    if (stat(argv[i], &info) == 0) file_bytes += static_cast<uint64_t>(info.st_size);
    Chunk chunk;
    for (;;) {
      std::string_view payload;
      const auto next = reader.next(payload);
      if (next == prof::analyzer::CaptureReader::Next::kEnd) break;
      if (next == prof::analyzer::CaptureReader::Next::kError ||
          !chunk.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
        fprintf(stderr, "bench_record_sizes: %s: corrupt chunk\n", argv[i]);
        return 1;
      }
      auto fixed = [](const char* name) { return [name](const auto&) { return std::string(name); }; };
      tally_list(records, 2, chunk.api_calls(), api_call_name);
      tally_list(records, 3, chunk.kernels(), fixed("kernel"));
      tally_list(records, 4, chunk.memcpys(), fixed("memcpy"));
      tally_list(records, 5, chunk.memsets(), fixed("memset"));
      tally_list(records, 6, chunk.nvtx_ranges(), fixed("NVTX range"));
      tally_list(records, 7, chunk.memory_events(), fixed("memory event"));
      tally_list(records, 8, chunk.synchronizations(), fixed("synchronization"));
      tally_list(records, 9, chunk.nvtx_marks(), fixed("NVTX mark"));
      tally_list(records, 10, chunk.overheads(), fixed("overhead"));
    }
  }
  for (const auto& [name, tally] : records) {
    record_bytes += tally.bytes;
    printf("record\t%s\t%" PRIu64 "\t%" PRIu64 "\n", name.c_str(), tally.records, tally.bytes);
  }
  uint64_t total_records = 0;
  for (const auto& [name, tally] : records) total_records += tally.records;
  // Definitions and framing: whatever the file holds beyond its records.
  printf("other\tdefinitions and framing\t%" PRIu64 "\t%" PRIu64 "\n", total_records,
         file_bytes - record_bytes);
  printf("total\tfile\t%" PRIu64 "\t%" PRIu64 "\n", total_records, file_bytes);
  return 0;
}
