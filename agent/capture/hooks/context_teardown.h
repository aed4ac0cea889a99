#pragma once
// Calls that destroy a CUDA context (cudaDeviceReset, cuCtxDestroy, a
// primary context's reset or release): without CUPTI, the GPU work the
// hooks timed with events is read back by the writer, and the events die
// with their context. So before such a call goes to the driver, the
// calling thread has the writer read every pending operation (waiting for
// the GPU), bounded, and only then lets the context go.

namespace prof {

// App thread, before the real teardown call, outside the call's recorded
// interval. Returns at once when nothing is timed with events.
void before_context_teardown();

}  // namespace prof
