#include "control/capture_control.h"

#include <algorithm>

#include "common/clock.h"

namespace prof {
namespace {


bool records(ScheduleAction action) {
  return action == ScheduleAction::kRecord || action == ScheduleAction::kRecordAndSave;
}

}  // namespace

CaptureControl::CaptureControl(CaptureControlOptions options, std::string output_path, uint64_t start_ns,
                               CaptureSwitch& capture)
    : options_(std::move(options)), output_path_(std::move(output_path)), start_ns_(start_ns), capture_(capture) {}

std::string CaptureControl::schedule_path(int64_t first_step) const {
  // run.pb -> run.step12.pb, like on_trace_ready writing one trace per cycle.
  const size_t slash = output_path_.rfind('/');
  size_t dot = output_path_.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = output_path_.size();
  return output_path_.substr(0, dot) + ".step" + std::to_string(first_step) + output_path_.substr(dot);
}

void CaptureControl::start(WindowSink& windows, uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  window_sink_ = &windows;
  if (!options_.windowed()) return;
  capture_.set_window_open(false, now_ns);
  update_cuda_mode();
  // PROF_DURATION with no delay: the window opens now, not at the writer's
  // first pass, which a short program may end before (it then recorded
  // nothing at all).
  if (options_.time_window() && options_.delay_ns == 0) {
    delay_done_ = true;
    open_window(Trigger::duration, -1, now_ns, output_path_);
    update_cuda_mode();
  }
}

void CaptureControl::step_boundary(uint64_t now_ns) {
  step_ends(now_ns);
  step_begins(now_ns);
}

void CaptureControl::step_begins(uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  if (in_step_ || window_sink_ == nullptr) return;
  in_step_ = true;
  ++step_;
  window_sink_->note_step(step_);
  if (stopped_) return;
  if (!window_open_ && demand_armed_ && demand_.steps > 0) {
    demand_armed_ = false;
    demand_steps_left_ = demand_.steps;
    open_window(Trigger::on_demand, step_, now_ns, demand_.path);
  }
  if (options_.schedule && !window_open_) {
    const ScheduleAction action = schedule_action(*options_.schedule, step_);
    warmup_ = action == ScheduleAction::kWarmup;
    if (records(action)) open_window(Trigger::schedule, step_, now_ns, schedule_path(step_));
  }
  update_cuda_mode();
}

void CaptureControl::step_ends(uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  if (!in_step_) return;
  in_step_ = false;
  if (window_open_ && trigger_ == Trigger::on_demand && demand_.steps > 0 && --demand_steps_left_ == 0) {
    close_window(now_ns);
  }
  if (window_open_ && trigger_ == Trigger::schedule &&
      schedule_action(*options_.schedule, step_) == ScheduleAction::kRecordAndSave) {
    close_window(now_ns);
  }
  // CUPTI goes quiet now unless the next step needs it (warmup or active).
  warmup_ = options_.schedule && !stopped_ &&
            schedule_action(*options_.schedule, step_ + 1) != ScheduleAction::kNone;
  update_cuda_mode();
}

void CaptureControl::tick(uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  if (window_sink_ == nullptr || stopped_) return;
  if (options_.time_window() && !delay_done_ && !window_open_ && now_ns >= start_ns_ + options_.delay_ns) {
    delay_done_ = true;
    open_window(Trigger::duration, -1, now_ns, output_path_);
    update_cuda_mode();
  }
  if (window_open_ && trigger_ == Trigger::duration && options_.duration_ns != 0 &&
      now_ns >= window_start_ns_ + options_.duration_ns) {
    close_window(now_ns);
    update_cuda_mode();
  }
  if (window_open_ && trigger_ == Trigger::on_demand && demand_.steps == 0 && now_ns >= demand_end_ns_) {
    close_window(now_ns);
    update_cuda_mode();
  }
}

bool CaptureControl::request(const OnDemandRequest& request, uint64_t now_ns, std::string& error) {
  std::lock_guard lock(mutex_);
  if (stopped_) {
    error = "PROF_MAX_MB was reached; the agent records nothing more";
    return false;
  }
  if (window_open_ || demand_armed_) {
    error = "a capture window is already open";
    return false;
  }
  if (request.steps > 0 && !options_.step_rule) {
    error = "the process runs without PROF_STEP, so it cannot count steps; use --duration";
    return false;
  }
  demand_ = request;
  if (request.steps > 0) {
    demand_armed_ = true;  // opens where the next step begins
  } else {
    demand_end_ns_ = now_ns + request.duration_ns;
    open_window(Trigger::on_demand, -1, now_ns, request.path);
  }
  update_cuda_mode();
  return true;
}

void CaptureControl::stop_for_good(uint64_t now_ns) {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  stopped_ = true;
  demand_armed_ = false;
  warmup_ = false;
  capture_.close_for_good(now_ns);
  if (window_open_) close_window(now_ns);
  update_cuda_mode();
}

bool CaptureControl::wants_full_capture() const {
  return !stopped_ && (window_open_ || warmup_ || (demand_armed_ && demand_.steps > 0) || !options_.windowed());
}

void CaptureControl::open_window(Trigger trigger, int64_t first_step, uint64_t now_ns, const std::string& path) {
  window_open_ = true;
  trigger_ = trigger;
  // CUPTI's activity kinds go on first. A window cut by time starts once
  // they are on: work launched before has no GPU record, so the window
  // holds the work launched inside it (a step window's kinds are on from
  // the step before, warmup or not: see step_ends).
  update_cuda_mode();
  // A window cut by time starts once recording is on: a call that began
  // before is not in it (cuda_capture.cpp), so the window's start must not
  // come before the gate opens.
  const bool by_time = first_step < 0;
  if (by_time) {
    capture_.set_window_open(true, monotonic_ns());
    now_ns = std::max(now_ns, monotonic_ns());
  }
  window_start_ns_ = now_ns;
  WindowStart start;
  start.index = windows_++;
  start.first_step = first_step;
  start.start_ns = now_ns;
  start.path = path;
  start.trigger = trigger == Trigger::schedule ? "schedule" : trigger == Trigger::duration ? "duration" : "on_demand";
  start.step_rule = options_.step_rule ? options_.step_rule->spelling() : "";
  // A step window: the writer learns of it before anything of it is
  // recorded. (A time window's first records, drained before the writer
  // handles its start, wait in the chunk being built for its file.)
  window_sink_->begin_window(start);
  if (!by_time) capture_.set_window_open(true, now_ns);
}

void CaptureControl::close_window(uint64_t now_ns) {
  window_open_ = false;
  capture_.set_window_open(false, now_ns);
  window_sink_->end_window(trigger_ == Trigger::duration || (trigger_ == Trigger::on_demand && demand_.steps == 0)
                          ? -1 : step_, now_ns);
}

void CaptureControl::update_cuda_mode() { capture_.set_cuda_full(wants_full_capture()); }

}  // namespace prof
