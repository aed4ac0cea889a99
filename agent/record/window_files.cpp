#include "record/window_files.h"

#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

namespace prof {

WindowFiles::WindowFiles(const Recorder& recorder, Options options)
    : recorder_(recorder), options_(options) {}

std::string WindowFiles::last_window_path() const {
  std::lock_guard lock(mutex_);
  return last_path_;
}

void WindowFiles::begin_window(const WindowStart& start) {
  Event event;
  event.begin = true;
  event.start = start;
  push(std::move(event));
}

void WindowFiles::end_window(int64_t last_step, uint64_t end_ns) {
  Event event;
  event.last_step = last_step;
  event.end_ns = end_ns;
  // The writer may handle this long after (a loaded machine): by then the
  // threads may have recorded the next window too.
  event.until = recorder_.positions();
  push(std::move(event));
}

void WindowFiles::push(Event event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  if (wake_ != nullptr) wake_();
}

bool WindowFiles::events_pending() const {
  std::lock_guard lock(mutex_);
  return !events_.empty();
}

void WindowFiles::handle_events(Output& output) {
  std::vector<Event> events;
  {
    std::lock_guard lock(mutex_);
    events.swap(events_);
  }
  for (const Event& event : events) {
    if (event.begin) {
      if (active_) complete(output, -1, event.start.start_ns, true, nullptr, nullptr, wait_deadline());
      window_ = event.start;
      active_ = true;
      if (ActivitySource* source = output.activity_source(); source != nullptr && source->reports_launches()) {
        launches_.begin();
      }
      output.open_file(window_.path);
    } else if (active_) {
      complete(output, event.last_step, event.end_ns, false, &event.until, nullptr, wait_deadline());
    }
  }
}

uint64_t WindowFiles::wait_deadline() const {
  return monotonic_ns() + uint64_t{options_.window_wait_ms} * 1'000'000;
}

void WindowFiles::finish(Output& output, const file::ProcessEnd& end, uint64_t wait_until_ns) {
  handle_events(output);
  if (!active_) return;  // the process ended between windows
  // The process ended inside a window: torch's profiler still saves it.
  // Its steps run from the first to the one in progress.
  const int64_t step = step_begun_.load(std::memory_order_relaxed);
  complete(output, window_.first_step >= 0 && step >= window_.first_step ? step : -1, end.end_ns, true, nullptr,
           &end, wait_until_ns);
}

void WindowFiles::note_launch(const ApiCallRecord& call, uint64_t start_ns) {
  // The source's records of a call that succeeded in putting work on the
  // GPU; a call that began before the window opened may have launched while
  // CUPTI's activity kinds were still off, so it has no record to wait for.
  if (!cupti_will_report_work(call) || start_ns < window_.start_ns) return;
  launches_.launched(call.correlation_id);
}

uint64_t WindowFiles::launches_outstanding(const ActivitySource& source, uint64_t end_ns, bool at_exit) const {
  if (source.reports_launches()) return launches_.active() ? launches_.outstanding() : 0;
  // Event timing knows its running work itself: the operations launched by
  // the window's calls whose end event has not completed (the last step's
  // kernels, still on the GPU when the next step began). At exit the writer
  // has already waited for all of them, or must not wait (a signal).
  return at_exit ? 0 : source.work_running(end_ns);
}

uint32_t WindowFiles::wait_for_launches(Output& output, uint64_t end_ns, uint64_t wait_until_ns, bool at_exit) {
  ActivitySource* source = output.activity_source();
  if (source == nullptr) return 0;
  const uint64_t start = monotonic_ns();
  while (launches_outstanding(*source, end_ns, at_exit) != 0 && monotonic_ns() < wait_until_ns &&
         !output.handler_waits().now()) {
    // Not forced: a forced flush would hand over work launched after the
    // window (by a warmup step, or the next window) unfinished, and lose it.
    sleep_ms(1);
    source->deliver(false, output.handler_waits());
    output.drain_activity(end_ns);
  }
  const auto missing = static_cast<uint32_t>(launches_outstanding(*source, end_ns, at_exit));
  if (missing != 0 && !at_exit) {  // at exit the run's end-of-run line says it
    log_info("window %u: the GPU records of %u operations launched inside it had not arrived %u ms after "
             "it ended; the file has their calls without them",
             window_.index, missing, options_.window_wait_ms);
  } else if (monotonic_ns() - start > 100'000'000) {
    log_debug("window %u: waited %llu ms for the GPU records of its launches", window_.index,
              static_cast<unsigned long long>((monotonic_ns() - start) / 1'000'000));
  }
  return missing;
}

void WindowFiles::complete(Output& output, int64_t last_step, uint64_t end_ns, bool partial,
                           const Recorder::Positions* until, const file::ProcessEnd* end, uint64_t wait_until_ns) {
  // The window's GPU work goes into its file: what the source holds of it
  // now, then the records of launches still running, as they finish
  // (bounded by PROF_WINDOW_WAIT_MS). At the process's end the writer has
  // already waited, then forced everything out: what is still outstanding
  // never comes.
  if (ActivitySource* source = output.activity_source()) source->deliver(false, output.handler_waits());
  // GPU work of a later window the writer has not opened yet (it fell
  // behind) waits for it.
  output.drain(until, end_ns);
  const uint32_t missing = wait_for_launches(output, end_ns, wait_until_ns, end != nullptr);
  launches_.end();
  file::Window window;
  window.index = window_.index;
  window.first_step = window_.first_step;
  window.last_step = last_step;
  window.start_ns = window_.start_ns;
  window.end_ns = end_ns;
  window.step_rule = window_.step_rule;
  window.trigger = window_.trigger;
  window.partial = partial;
  window.gpu_records_missing = missing;
  const uint64_t bytes = output.close_file(window, end);
  closed_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  const bool created = bytes != 0;
  if (created) {
    files_written_.fetch_add(1, std::memory_order_relaxed);
    log_debug("wrote %s (%llu bytes)", window_.path.c_str(), static_cast<unsigned long long>(bytes));
    kept_files_.push_back(window_.path);
    // PROF_KEEP: a ring of files on disk, the newest kept.
    while (options_.keep != 0 && kept_files_.size() > options_.keep) {
      ::unlink(kept_files_.front().c_str());
      kept_files_.erase(kept_files_.begin());
    }
  }
  {
    std::lock_guard lock(mutex_);
    if (created) last_path_ = window_.path;
  }
  windows_completed_.fetch_add(1, std::memory_order_release);
  active_ = false;
}

bool WindowFiles::over_budget(uint64_t file_bytes, size_t next_bytes) {
  if (budget_spent_) return true;
  if (options_.max_bytes == 0) return false;
  const uint64_t written = closed_bytes_.load(std::memory_order_relaxed) + file_bytes;
  if (written + next_bytes <= options_.max_bytes) return false;
  budget_spent_ = true;
  log_error("PROF_MAX_MB=%llu reached (%llu bytes written); recording stops here",
            static_cast<unsigned long long>(options_.max_bytes >> 20), static_cast<unsigned long long>(written));
  if (options_.on_budget_spent != nullptr) options_.on_budget_spent(monotonic_ns());
  return true;
}

}  // namespace prof
