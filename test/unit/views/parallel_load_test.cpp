// Several files read on every core (model/load_run.cpp) give every view the
// output of reading them one by one: the same names, stacks, kernel configs
// and event order, so the same bytes, warnings and errors.
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <memory>
#include <string>
#include <vector>

#include "advise_capture.h"
#include "analyzer_test_support.h"
#include "cli/load_files.h"
#include "golden_capture.h"
#include "training_capture.h"
#include "views_capture.h"

using prof::testing::CliResult;
using prof::testing::run_cli;
using prof::testing::TempFile;

namespace {

// PROFANALYZE_JOBS for one command, then unset again.
CliResult run_with_jobs(const char* jobs, std::vector<std::string> args) {
  ::setenv("PROFANALYZE_JOBS", jobs, 1);
  CliResult result = run_cli(std::move(args));
  ::unsetenv("PROFANALYZE_JOBS");
  return result;
}

// Captures of different programs, so that each file brings names, stacks,
// frames, modules and kernel configs of its own and shares some with the
// files before it; ranks with clocks of their own.
std::vector<std::unique_ptr<TempFile>> mixed_captures() {
  std::vector<std::string> bytes;
  for (uint32_t rank = 0; rank < 6; ++rank) {
    prof::testing::ViewsCaptureOptions options;
    options.pid = 5000 + rank;
    options.rank = static_cast<int32_t>(rank);
    options.realtime_offset_ns += rank * 1'000'003ull;
    bytes.push_back(prof::testing::views_capture(options));
    if (rank == 1) bytes.push_back(prof::testing::golden_capture_bytes());
    if (rank == 2) bytes.push_back(prof::testing::TrainingCapture::bytes(6));
    if (rank == 4) bytes.push_back(prof::testing::advise_capture_bytes());
  }
  std::vector<std::unique_ptr<TempFile>> files;
  for (const std::string& b : bytes) {
    files.push_back(std::make_unique<TempFile>("parallel"));
    files.back()->write(b);
  }
  return files;
}

// One process over many chunks, each defining names the later ones use, so
// that decoding ahead (ParallelRecordDecoder) has chunks to run ahead on.
std::string many_chunks(int chunks) {
  prof::testing::CaptureFileWriter file(prof::testing::make_header(2, 0, "libprof 0.1.0"));
  uint32_t correlation = 1;
  for (int c = 0; c < chunks; ++c) {
    const uint64_t base = 1'000'000 + static_cast<uint64_t>(c) * 100'000;
    prof::testing::ChunkBuilder chunk(base);
    if (c == 0) chunk.process(77, base).set_rank(0);
    const auto id = static_cast<uint64_t>(c + 1);
    chunk.string(id, "step#" + std::to_string(c)).string(1000 + id, "_Z6kernelILi" + std::to_string(c % 7) + "EEvv");
    if (c == 0) chunk.string(999, "cudaLaunchKernel");
    chunk.range(1, id, base, base + 90'000);
    for (int k = 0; k < 20; ++k) {
      const uint64_t t = base + 1'000 + static_cast<uint64_t>(k) * 4'000;
      chunk.api_call(1, 999, t, t + 1'000, correlation);
      chunk.kernel(1000 + (id + static_cast<uint64_t>(k)) % id + 1, t + 2'000, t + 3'500, correlation);
      ++correlation;
    }
    file.chunk(chunk.finish());
  }
  return file.bytes();
}

std::vector<std::string> paths_of(const std::vector<std::unique_ptr<TempFile>>& files) {
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f->path());
  return paths;
}

}  // namespace

TEST_CASE("Files read on several threads give every view the output of reading them one by one",
          "[model][parallel]") {
  const auto files = mixed_captures();
  const std::vector<std::string> paths = paths_of(files);
  const std::vector<std::vector<std::string>> commands = {
      {"report"},
      {"report", "--format", "json"},
      {"report", "--group-by-input-shape", "--group-by-stack-n", "3", "--format", "csv"},
      {"report", "--view", "kernels"},
      {"report", "--view", "api"},
      {"report", "--view", "nvtx"},
      {"report", "--view", "memcpy"},
      {"report", "--view", "modules"},
      {"report", "--view", "memory"},
      {"report", "--step", "nvtx:^ProfilerStep#", "--format", "json"},
      {"info"},
      {"stacks", "--no-symbols"},
      {"stacks", "--no-symbols", "--per-thread", "--metric", "self_cuda_time_total"},
      {"trace", "-o", "-"},
      {"trace", "-o", "-", "--driver-calls"},
      {"advise", "--format", "json", "--no-symbols"},
      {"html", "-o", "-", "--no-symbols"},
  };
  for (const std::vector<std::string>& command : commands) {
    std::vector<std::string> args = command;
    args.insert(args.begin() + 1, paths.begin(), paths.end());
    INFO(command[0] << (command.size() > 1 ? " " + command[1] : std::string()));
    const CliResult serial = run_with_jobs("1", args);
    const CliResult parallel = run_with_jobs("8", args);
    CHECK(serial.exit_code == 0);
    CHECK(serial.out.size() > 100);
    CHECK(parallel.exit_code == serial.exit_code);
    CHECK(parallel.err == serial.err);
    CHECK(parallel.out == serial.out);
  }
}

TEST_CASE("One file's chunks decoded on other threads give every view the same output", "[model][parallel]") {
  TempFile file("chunks");
  file.write(many_chunks(60));
  TempFile cut("cut");  // a truncated last chunk: a warning
  const std::string whole = many_chunks(12);
  cut.write(whole.substr(0, whole.size() - 3));
  TempFile corrupt("corrupt");  // a chunk that does not parse: the error, with its offset
  std::string bad = many_chunks(30);
  bad[bad.size() / 2] = '\xff';
  bad[bad.size() / 2 + 1] = '\xff';
  corrupt.write(bad);
  for (const std::string& path : {file.path(), cut.path(), corrupt.path()}) {
    for (const std::vector<std::string>& command :
         std::vector<std::vector<std::string>>{{"report"}, {"info"}, {"trace", "-o", "-"}, {"stacks", "--no-symbols"}}) {
      std::vector<std::string> args = command;
      args.insert(args.begin() + 1, path);
      INFO(path << " " << command[0]);
      const CliResult serial = run_with_jobs("1", args);
      const CliResult decoded_ahead = run_with_jobs("3", args);
      CHECK(decoded_ahead.exit_code == serial.exit_code);
      CHECK(decoded_ahead.err == serial.err);
      CHECK(decoded_ahead.out == serial.out);
      if (path == file.path()) CHECK(serial.exit_code == 0);
      if (path == cut.path()) CHECK(serial.err.find("truncated") != std::string::npos);
      if (path == corrupt.path()) CHECK(serial.exit_code != 0);
    }
  }
}

TEST_CASE("A bad file among many: the same warnings and the same error, serial or parallel", "[model][parallel]") {
  auto files = mixed_captures();
  // A file cut inside its last chunk (a warning), then one that is no capture
  // (the error): the files after it are never reported.
  const std::string whole = prof::testing::views_capture();
  files[2]->write(whole.substr(0, whole.size() - 5));
  files[5]->write("not a capture file at all");
  const std::vector<std::string> paths = paths_of(files);
  std::vector<std::string> args = {"report"};
  args.insert(args.end(), paths.begin(), paths.end());
  const CliResult serial = run_with_jobs("1", args);
  const CliResult parallel = run_with_jobs("8", args);
  CHECK(serial.exit_code != 0);
  CHECK(serial.err.find(files[2]->path()) != std::string::npos);
  CHECK(serial.err.find(files[5]->path()) != std::string::npos);
  CHECK(parallel.exit_code == serial.exit_code);
  CHECK(parallel.err == serial.err);
  CHECK(parallel.out == serial.out);
}

TEST_CASE("PROFANALYZE_JOBS: a positive number caps the threads; anything else is one per core", "[model][parallel]") {
  ::setenv("PROFANALYZE_JOBS", "3", 1);
  CHECK(prof::analyzer::load_jobs() == 3);
  ::setenv("PROFANALYZE_JOBS", "3x", 1);
  CHECK(prof::analyzer::load_jobs() == 0);
  ::setenv("PROFANALYZE_JOBS", "", 1);
  CHECK(prof::analyzer::load_jobs() == 0);
  ::unsetenv("PROFANALYZE_JOBS");
  CHECK(prof::analyzer::load_jobs() == 0);
}
