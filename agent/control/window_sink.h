#pragma once
// Where capture windows go: the writer (record/writer.h) implements it, so
// that CaptureControl decides windows without knowing how files are written,
// and its unit test records the calls with a fake.
#include <cstdint>
#include <string>

namespace prof {

struct WindowStart {
  uint32_t index = 0;
  int64_t first_step = -1;  // -1: a window cut by time
  uint64_t start_ns = 0;
  std::string path;
  std::string trigger;    // schedule, duration, on_demand (file::Window.trigger)
  std::string step_rule;  // PROF_STEP's spelling, or empty
};

class WindowSink {
 public:
  // Everything recorded from now goes to `start.path`.
  virtual void begin_window(const WindowStart& start) = 0;
  // The window ends: its file is completed and closed.
  virtual void end_window(int64_t last_step, uint64_t end_ns) = 0;
  // The step in progress, as each step begins: the last step of a window
  // the process ends inside.
  virtual void note_step(int64_t step) = 0;
  // The window files completed so far, and the newest one's path (the
  // on-demand trigger waits for one).
  virtual uint64_t windows_completed() const = 0;
  virtual std::string last_window_path() const = 0;

 protected:
  ~WindowSink() = default;
};

}  // namespace prof
