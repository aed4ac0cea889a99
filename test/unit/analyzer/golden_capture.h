#pragma once
// The fixed capture behind the golden outputs (golden/*.txt): one process,
// three chunks, two threads, nested and sibling ranges, a non-default
// domain, ProfilerStep#N steps, API calls launching a kernel, a memcpy and a
// memset, a name longer than the table's 52 characters, strings defined in
// one chunk and used in later ones, and drop totals that grow per chunk.
#include <string>

#include "capture_file_writer.h"

namespace prof::testing {

inline std::string golden_capture_bytes() {
  constexpr uint32_t kMain = 4242;
  constexpr uint32_t kWorker = 4243;
  CaptureFileWriter file(make_header(2, 0, "libprof 0.1.0"));

  ChunkBuilder c0(1'000'000);
  auto& p = c0.process(4242, 1'000'000);
  p.set_parent_pid(1);
  p.set_hostname("node07");
  p.set_executable("/usr/bin/python3");
  p.add_command_line("python3");
  p.add_command_line("train.py");
  p.add_command_line("--epochs=1");
  p.set_rank(0);
  p.set_world_size(2);
  (*p.mutable_options())["stacks"] = "native";
  (*p.mutable_options())["capture"] = "all";
  c0.thread(kMain, "python3").thread(kWorker, "dataloader");
  c0.string(1, "ProfilerStep#1").string(2, "forward").string(3, "cudaLaunchKernel").string(4, "cudaMemcpyAsync");
  c0.string(5, "_Z6matmulPfS_S_i").string(6, "load_batch").string(7, "mylib").string(8, "encode");
  c0.string(9, "a_range_name_that_is_far_too_long_for_the_name_column_of_the_table");
  c0.string(10, "ProfilerStep#2").string(11, "cudaMemsetAsync").string(12, "checkpoint");
  // Step 1 on main: forward (launch + copy inside), then a mylib:encode range.
  c0.range(kMain, 1, 1'000'000, 3'000'000);
  c0.range(kMain, 2, 1'100'000, 2'100'000);
  c0.api_call(kMain, 3, 1'200'000, 1'210'000, 101);
  c0.api_call(kMain, 4, 1'300'000, 1'320'500, 102);
  c0.range(kMain, 8, 2'200'000, 2'950'000, prof::proto::NvtxRange::PUSH_POP, 7);
  // Worker thread, out of start order relative to main (negative deltas).
  c0.range(kWorker, 6, 900'000, 2'500'000);
  c0.kernel(5, 1'250'000, 1'750'000, 101);
  c0.memcpy(1'330'000, 1'340'000, 4096, 102);
  c0.mark(kMain, 2, 1'150'000);
  c0.drops(1, 0, 0);
  file.chunk(c0.finish());

  ChunkBuilder c1(3'000'000);
  c1.thread(kWorker, "loader-0");  // renamed: the last name wins
  c1.range(kMain, 10, 3'000'000, 5'500'000);
  c1.range(kMain, 2, 3'100'000, 5'100'000);
  c1.api_call(kMain, 3, 3'200'000, 3'204'000, 201);
  c1.api_call(kMain, 11, 3'300'000, 3'303'000, 202);
  c1.range(kMain, 9, 5'200'000, 5'400'000);
  c1.kernel(5, 3'210'000, 4'710'000, 201);
  c1.memset(3'310'000, 3'312'000, 1024, 202);
  c1.synchronization(5'100'000, 5'150'000);
  c1.memory_event(3'050'000, 1 << 20);
  c1.drops(3, 2, 1);
  file.chunk(c1.finish());

  ChunkBuilder c2(6'000'000);
  c2.range(kWorker, 12, 6'000'000, 9'000'000, prof::proto::NvtxRange::START_END);
  c2.range(kWorker, 6, 6'500'000, 7'000'000);
  c2.process_end(10'000'000);
  file.chunk(c2.finish());
  return file.bytes();
}

}  // namespace prof::testing
