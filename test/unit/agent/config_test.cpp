#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "config.h"

TEST_CASE("the output template expands pid, host, rank and percent") {
  prof::ProcessIdentity identity;
  identity.pid = 4321;
  identity.hostname = "gpu-node-3";
  identity.rank = 7;
  CHECK(prof::expand_output_template("run.pb", identity) == "run.pb");
  CHECK(prof::expand_output_template("out/%h-%p-r%r.pb", identity) == "out/gpu-node-3-4321-r7.pb");
  CHECK(prof::expand_output_template("100%%.pb", identity) == "100%.pb");
  CHECK(prof::expand_output_template("odd%x%", identity) == "odd%x%");
  identity.rank = -1;
  CHECK(prof::expand_output_template("r%r.pb", identity) == "r0.pb");
}

TEST_CASE("a child's file name gets its pid before the extension") {
  CHECK(prof::disambiguate_for_child("run.pb", 99) == "run.99.pb");
  CHECK(prof::disambiguate_for_child("/tmp/a.b/run", 99) == "/tmp/a.b/run.99");
  CHECK(prof::disambiguate_for_child("/tmp/.hidden", 99) == "/tmp/.hidden.99");
  CHECK(prof::disambiguate_for_child("trace", 5) == "trace.5");
}

TEST_CASE("PROF_BACKEND and PROF_GPU_TIMING choose the capture path, invalid values fall back") {
  const prof::ProcessIdentity identity;
  struct Case {
    const char* backend;
    const char* timing;
    prof::CaptureBackend want_backend;
    prof::GpuTiming want_timing;
  };
  for (const Case& c : {Case{"auto", "events", prof::CaptureBackend::automatic, prof::GpuTiming::events},
                        Case{"cupti", "none", prof::CaptureBackend::cupti, prof::GpuTiming::none},
                        Case{"hooks", "cupti", prof::CaptureBackend::hooks, prof::GpuTiming::cupti},
                        Case{"both", "sometimes", prof::CaptureBackend::automatic, prof::GpuTiming::automatic}}) {
    setenv("PROF_BACKEND", c.backend, 1);
    setenv("PROF_GPU_TIMING", c.timing, 1);
    setenv("PROF_LOG", "quiet", 1);
    const prof::AgentConfig config = prof::read_config(identity);
    CHECK(config.cuda.backend == c.want_backend);
    CHECK(config.cuda.gpu_timing == c.want_timing);
  }
  unsetenv("PROF_BACKEND");
  unsetenv("PROF_GPU_TIMING");
  unsetenv("PROF_LOG");
}

TEST_CASE("PROF_RING_WAIT_MS bounds the wait for room: 1 s by default, 0 turns it off, nonsense falls back") {
  const prof::ProcessIdentity identity;
  setenv("PROF_LOG", "quiet", 1);
  unsetenv("PROF_RING_WAIT_MS");
  CHECK(prof::read_config(identity).ring_wait_ms == 1000);
  for (const auto& [value, want] : {std::pair{"0", 0u}, std::pair{"250", 250u}, std::pair{"10000", 10000u},
                                    std::pair{"10001", 1000u}, std::pair{"-1", 1000u}, std::pair{"soon", 1000u}}) {
    setenv("PROF_RING_WAIT_MS", value, 1);
    CHECK(prof::read_config(identity).ring_wait_ms == want);
  }
  unsetenv("PROF_RING_WAIT_MS");
  unsetenv("PROF_LOG");
}

// Issue 25 item 5: the file recorded stacks=default and gpu_timing=auto,
// words PROF_STACKS and PROF_GPU_TIMING did not accept. Each option has one
// table: every word the file can record is one the variable takes, and
// means the same value again.
template <typename T, size_t N>
void check_words_round_trip(const char* variable, const prof::OptionWord<T> (&table)[N], T prof::CudaCaptureOptions::*field) {
  const prof::ProcessIdentity identity;
  for (const prof::OptionWord<T>& entry : table) {
    setenv(variable, entry.word, 1);
    const prof::AgentConfig config = prof::read_config(identity);
    CHECK(config.cuda.*field == entry.value);
    CHECK(std::string(prof::word_of(table, config.cuda.*field)) == entry.word);
  }
  unsetenv(variable);
  // Unset: the default, recorded in a word the variable takes.
  const prof::AgentConfig config = prof::read_config(identity);
  T parsed{};
  CHECK(prof::value_of(table, prof::word_of(table, config.cuda.*field), parsed));
  CHECK(parsed == config.cuda.*field);
}

TEST_CASE("every word the file records for a CUDA option is one its variable accepts, meaning the same") {
  check_words_round_trip("PROF_STACKS", prof::kStackModeWords, &prof::CudaCaptureOptions::stacks);
  check_words_round_trip("PROF_GPU_TIMING", prof::kGpuTimingWords, &prof::CudaCaptureOptions::gpu_timing);
  check_words_round_trip("PROF_BACKEND", prof::kCaptureBackendWords, &prof::CudaCaptureOptions::backend);
  check_words_round_trip("PROF_CAPTURE", prof::kCaptureRangeWords, &prof::CudaCaptureOptions::range);
  check_words_round_trip("PROF_API", prof::kApiCallWords, &prof::CudaCaptureOptions::all_api_calls);
  CHECK(std::string(prof::stack_mode_name(prof::StackMode::automatic)) == "auto");
}

TEST_CASE("PROF_TORCH is off, empty (all parts) or a list of parts") {
  std::string error;
  CHECK(prof::parse_torch_parts("", error) == prof::kTorchAll);
  CHECK(prof::parse_torch_parts("off", error) == 0u);
  CHECK(prof::parse_torch_parts("ops", error) == prof::kTorchOps);
  CHECK(prof::parse_torch_parts("modules,steps", error) == (prof::kTorchModules | prof::kTorchSteps));
  CHECK(prof::parse_torch_parts("memory,ops,steps,modules", error) == prof::kTorchAll);
  CHECK_FALSE(prof::parse_torch_parts("ops,,steps", error).has_value());
  CHECK_FALSE(prof::parse_torch_parts("ops,kernels", error).has_value());
  CHECK(error == "'kernels' is not ops, modules, steps or memory");
  CHECK(prof::torch_parts_name(prof::kTorchAll) == "ops,modules,steps,memory");
  CHECK(prof::torch_parts_name(prof::kTorchSteps | prof::kTorchOps) == "ops,steps");
  CHECK(prof::torch_parts_name(0) == "off");
}
