#include "capture/hooks/context_teardown.h"

#include "agent_state.h"
#include "capture/hooks/event_timing.h"
#include "record/writer.h"

namespace prof {
namespace {

// As long as a window's end waits for its GPU records (PROF_WINDOW_WAIT_MS's
// default): work still running after that is counted as unfinished.
constexpr uint32_t kTeardownWaitMs = 2000;

}  // namespace

void before_context_teardown() {
  if (agent_state().phase.load(std::memory_order_acquire) != AgentPhase::recording) return;
  if (!EventTiming::synchronize_at_next_drain()) return;
  Writer* writer = agent_state().writer.load(std::memory_order_acquire);
  if (writer == nullptr) return;
  writer->wait_until_written(writer->request_flush(false), kTeardownWaitMs);
}

}  // namespace prof
