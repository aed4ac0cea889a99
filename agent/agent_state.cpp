#include "agent_state.h"

namespace prof::detail {

// constinit: initialised at compile time, never by a constructor that could
// run after the preload constructor has set it up.
constinit AgentState g_agent_state;

}  // namespace prof::detail
