#include "agent_state.h"

namespace prof::detail {

// constinit: initialised at compile time, never by a constructor that could
// run after the preload constructor has set it up. Start-up writes most of
// it (the fields, the entries of the signals it handles): aligned to its
// size, it never crosses a page boundary, where it cost every process under
// LD_PRELOAD a second page copied on write (issue #30). Not aligned to a
// page: .data would start on a page of its own, one more page to copy for
// the two pointers the loader relocates at its start.
alignas(2048) constinit AgentState g_agent_state;
static_assert(sizeof(AgentState) <= 2048, "AgentState would cross a page boundary");

}  // namespace prof::detail
