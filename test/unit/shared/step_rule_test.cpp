// The step rule both programs parse (PROF_STEP, --step): its syntax, its
// messages, what each kind matches (kernels by the names users write), and
// that hostile patterns on long names neither crash nor use the stack.
#include <catch2/catch.hpp>
#include <pthread.h>

#include <string>

#include "step_rule.h"

using prof::StepRule;

namespace {

StepRule parsed(const std::string& text) {
  std::string error;
  std::optional<StepRule> rule = StepRule::parse(text, error);
  INFO(text << ": " << error);
  REQUIRE(rule);
  return *rule;
}

std::string refusal(const std::string& text) {
  std::string error;
  CHECK_FALSE(StepRule::parse(text, error));
  return error;
}

// Runs `work` on a thread with a 64 KiB stack, as small as an app thread's
// can be: std::regex took ~122k frames for the patterns below.
template <typename Work>
void on_small_stack(Work& work) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 64 << 10);
  pthread_t thread;
  auto run = [](void* w) -> void* {
    (*static_cast<Work*>(w))();
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attributes, run, &work) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
}

}  // namespace

TEST_CASE("Each kind parses and spells back as written", "[step_rule]") {
  for (const char* text : {"nvtx:^ProfilerStep#\\d+$", "kernel:^scale\\(", "api:cudaGraphLaunch",
                           "api:cudaDeviceSynchronize", "nvtx:a:b"}) {
    CHECK(parsed(text).spelling() == text);
  }
  CHECK(parsed("nvtx:x").kind() == StepRule::Kind::kNvtx);
  CHECK(parsed("kernel:x").kind() == StepRule::Kind::kKernel);
  CHECK(parsed("api:x").kind() == StepRule::Kind::kApi);
  CHECK(parsed("nvtx:a:b").pattern() == "a:b");
  CHECK(parsed("api:cudaStreamSynchronize").ends_steps());
  CHECK_FALSE(parsed("api:cudaGraphLaunch").ends_steps());
  CHECK_FALSE(parsed("nvtx:Synchronize").ends_steps());
}

TEST_CASE("A bad rule is refused with what is wrong, in RE2's words for a regex", "[step_rule]") {
  CHECK(refusal("kernel:*") == "has a bad regular expression: no argument for repetition operator: *");
  CHECK(refusal("nvtx:(") == "has a bad regular expression: missing ): (");
  CHECK(refusal("kernel:") == "has nothing after 'kernel:' (a regular expression)");
  CHECK(refusal("api:") == "has nothing after 'api:' (a CUDA function's name)");
  CHECK(refusal("step") == "is not nvtx:REGEX, kernel:REGEX or api:NAME");
  CHECK(refusal("auto") == "is not nvtx:REGEX, kernel:REGEX or api:NAME");
  CHECK(refusal("Kernel:x") == "is not nvtx:REGEX, kernel:REGEX or api:NAME");
  std::string error;
  CHECK_FALSE(StepRule::make(StepRule::Kind::kKernel, "[", error));
  CHECK(error == "has a bad regular expression: missing ]: [");
}

TEST_CASE("nvtx and kernel rules search the name; api rules compare it whole", "[step_rule]") {
  const StepRule nvtx = parsed("nvtx:^ProfilerStep#\\d+$");
  CHECK(nvtx.matches("ProfilerStep#12"));
  CHECK_FALSE(nvtx.matches("ProfilerStep#"));
  CHECK_FALSE(nvtx.matches("xProfilerStep#1"));
  CHECK(parsed("nvtx:step").matches("train step 3"));  // unanchored: searched
  const StepRule api = parsed("api:cudaMemcpy");
  CHECK(api.matches("cudaMemcpy"));
  CHECK_FALSE(api.matches("cudaMemcpyAsync"));  // a name, not a regex
  CHECK_FALSE(parsed("api:cuda.*").matches("cudaMemcpy"));
  // Copies share the compiled regex.
  const StepRule copy = nvtx;
  CHECK(copy.matches("ProfilerStep#1"));
}

TEST_CASE("Kernel names are matched as users write them: C++ demangled, C as is", "[step_rule]") {
  using prof::demangled_kernel_name;
  CHECK(demangled_kernel_name("_Z5scalePfi") == "scale(float*, int)");
  CHECK(demangled_kernel_name("_Z5scaleIfEvPT_i") == "void scale<float>(float*, int)");
  CHECK(demangled_kernel_name("c_step_kernel") == "c_step_kernel");
  CHECK(demangled_kernel_name("_Znot a mangling") == "_Znot a mangling");
  CHECK(demangled_kernel_name("") == "");
  const std::string huge = "_Z" + std::string(1 << 15, 'N');  // past the demangler's bound: kept
  CHECK(demangled_kernel_name(huge) == huge);

  const StepRule scale = parsed("kernel:^scale\\(");
  CHECK(scale.matches(demangled_kernel_name("_Z5scalePfi")));
  CHECK_FALSE(scale.matches("_Z5scalePfi"));
  CHECK_FALSE(scale.matches(demangled_kernel_name("_Z9scale_allPfi")));
  CHECK(parsed("kernel:^c_step_kernel$").matches(demangled_kernel_name("c_step_kernel")));
}

TEST_CASE("Patterns that overflowed std::regex's recursion match long names on a small stack", "[step_rule]") {
  const std::string long_name(1 << 20, 'a');
  const StepRule any = parsed("kernel:(.|\\n)*");
  const StepRule alternation = parsed("kernel:^(a|[^a])*$");
  const StepRule nested = parsed("nvtx:^((a*)*b)");
  bool any_matches = false, alternation_matches = false, nested_matches = true;
  auto work = [&] {
    any_matches = any.matches(long_name);
    alternation_matches = alternation.matches(long_name);
    nested_matches = nested.matches(long_name);
  };
  on_small_stack(work);
  CHECK(any_matches);
  CHECK(alternation_matches);
  CHECK_FALSE(nested_matches);
}
