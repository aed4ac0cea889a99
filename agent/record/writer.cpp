#include "record/writer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>

#include "common/clock.h"
#include "common/log.h"
#include "common/proc_self.h"
#include "record/records.h"

namespace prof {
namespace {

// A chunk is written early once this much is pending, which bounds the
// writer's memory and the reader's per-chunk memory (FORMAT.md).
constexpr size_t kChunkBytesLimit = 4u << 20;

void sleep_ms(uint32_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

}  // namespace

Writer::Writer(Recorder& recorder, Options options, file::Process process)
    : recorder_(recorder),
      options_(std::move(options)),
      process_(std::move(process)),
      file_(options_.windowed ? std::string() : options_.path),
      translator_(read_thread_name) {}

Writer::~Writer() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

bool Writer::prepare() {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    log_error("eventfd: %s; recording is off", strerror(errno));
    return false;
  }
  return true;
}

void Writer::hold_for_fork() {
  pass_mutex_.lock();
  if (recorder_.recording_started()) claim_path();  // no pass runs now
}

void Writer::claim_path() {
  if (claimed_ || options_.windowed) return;  // window files are named by their windows
  if (claim_ != nullptr) file_.set_path(claim_->claim(file_.path()));
  claimed_ = true;
}

bool Writer::create_file() {
  claim_path();
  if (!file_.create()) return false;
  // The process description is the first chunk, so that even a run killed
  // right after its first write leaves a file that says what it was.
  ChunkEncoder first;
  first.begin(process_.start_ns);
  first.set(process_);
  return file_.write(encode_file_preamble("libprof " PROF_VERSION)) && file_.write(first.finish());
}

namespace {
// The running writer's eventfd, for ThreadBuffer's half-full hook (a plain
// function pointer, so the descriptor lives here).
std::atomic<int> g_wake_fd{-1};

void wake_writer() {
  const int fd = g_wake_fd.load(std::memory_order_acquire);
  if (fd < 0) return;
  const uint64_t one = 1;
  ssize_t ignored = ::write(fd, &one, sizeof(one));
  (void)ignored;
}
}  // namespace

void Writer::start() {
  running_.store(true, std::memory_order_release);
  g_wake_fd.store(wake_fd_, std::memory_order_release);
  ThreadBuffer::set_half_full_hook(wake_writer);
  ThreadBuffer::set_wait_limit_ns(uint64_t{options_.ring_wait_ms} * 1'000'000);
  // The app's SIGTERM/SIGINT must never run on this thread: the handler
  // waits for this thread to flush. The mask is set around the thread's
  // creation, so that the thread is born with it: blocking them from inside
  // the thread leaves a window, until it first runs, in which a signal can
  // land on it (seen on a loaded machine: the handler then waited for itself).
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "libprof-writer");
    run();
  });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

uint64_t Writer::request_flush(bool final, file::ProcessEnd::Reason reason, int signal) {
  if (final) {
    end_reason_.store(static_cast<uint32_t>(reason), std::memory_order_relaxed);
    end_signal_.store(signal, std::memory_order_relaxed);
    final_requested_.store(true, std::memory_order_release);
  }
  const uint64_t ticket = requested_.fetch_add(1, std::memory_order_acq_rel) + 1;
  const uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd_, &one, sizeof(one));  // eventfd: async-signal-safe
  (void)ignored;
  return ticket;
}

bool Writer::wait_until_written(uint64_t ticket, uint32_t timeout_ms) const {
  // A deadline on the clock, not a count of 1 ms naps: on a loaded machine
  // each nap can last much longer than asked.
  const uint64_t deadline = monotonic_ns() + uint64_t{timeout_ms} * 1'000'000;
  for (;;) {
    if (written_.load(std::memory_order_acquire) >= ticket) return true;
    if (!running_.load(std::memory_order_acquire)) {
      // The final flush may have ended the writer after writing this ticket.
      return written_.load(std::memory_order_acquire) >= ticket;
    }
    if (monotonic_ns() >= deadline) return false;
    sleep_ms(1);
  }
}

void Writer::join() {
  if (thread_.joinable()) thread_.join();
}

void Writer::run() {
  last_write_ns_ = monotonic_ns();
  for (;;) {
    pollfd wake{wake_fd_, POLLIN, 0};
    poll(&wake, 1, static_cast<int>(options_.drain_interval_ms));
    std::lock_guard pass(pass_mutex_);  // see hold_for_fork()
    uint64_t ignored;
    while (::read(wake_fd_, &ignored, sizeof(ignored)) > 0) {
    }
    // Read the tickets before draining: everything recorded before a request
    // was made is in the buffers by now.
    const uint64_t ticket = requested_.load(std::memory_order_acquire);
    const bool final = final_requested_.load(std::memory_order_acquire);
    if (options_.on_pass != nullptr && !final) options_.on_pass(monotonic_ns());
    // With windows, this pass drains what was recorded before it handled the
    // window events: a record committed later may belong to a window whose
    // end or start the next pass handles first.
    // GPU work that started after that waits for the next pass likewise.
    std::optional<Recorder::Positions> until;
    uint64_t later_after_ns = UINT64_MAX;
    if (options_.windowed && !final) {
      until = recorder_.positions();
      later_after_ns = monotonic_ns();
    }
    handle_window_events();
    if (final) {
      // Threads still recording as the process ends must not wait for a
      // writer that is about to stop.
      ThreadBuffer::set_wait_limit_ns(0);
      // Everything CUPTI still holds, unfinished work included, is part of
      // the last chunk. Done here rather than by whoever asked for the end:
      // a signal handler must not call into CUPTI.
      if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
        source->request_delivery(true);
      }
    }
    drain(until ? &*until : nullptr, later_after_ns);
    if (options_.windowed && !final && !window_active_) between_windows();
    if (recorder_.recording_started()) claim_path();
    const uint64_t now = monotonic_ns();
    if (final) {
      finish(now);
      written_.store(ticket, std::memory_order_release);
      break;
    }
    const bool requested = ticket > written_.load(std::memory_order_relaxed);
    const bool due = now - last_write_ns_ >= uint64_t{options_.flush_interval_ms} * 1'000'000;
    if (requested || due || chunk_.pending_bytes() >= kChunkBytesLimit) {
      ActivitySource* source = activity_source_.load(std::memory_order_acquire);
      // GPU records reach the file on the same period as the rest: CUPTI
      // otherwise holds them until a buffer fills. Not for a chunk written
      // because it is full: records then come fast enough to fill CUPTI's
      // buffers too, and each flush hands over a partial buffer (CUPTI asks
      // for a fresh one, whose pages fault in: 9% of the page faults of an
      // 8-thread launch loop, on the writer thread).
      if (source != nullptr && (requested || due)) {
        source->request_delivery(false);
        drain(until ? &*until : nullptr, later_after_ns);
      }
      write_chunk();
      written_.store(ticket, std::memory_order_release);
    }
  }
  running_.store(false, std::memory_order_release);
}

void Writer::between_windows() {
  ActivitySource* source = activity_source_.load(std::memory_order_acquire);
  if (source == nullptr) return;
  {
    std::lock_guard lock(windows_mutex_);
    if (!window_events_.empty()) return;  // a window begins (or ends) on the next pass
  }
  ChunkSink sink{chunk_, translator_.strings()};
  source->between_windows(sink);
}

void Writer::drain(const Recorder::Positions* until, uint64_t later_after_ns) {
  auto visit = [this](const ThreadBuffer& buffer, const RecordHeader& header) {
    translator_.translate(buffer, header, chunk_);
    if (launches_.active() && header.type == static_cast<uint16_t>(RecordType::api_call)) {
      note_launch(reinterpret_cast<const ApiCallRecord&>(header));
    }
  };
  auto after_slice = [this] {
    if (chunk_.pending_bytes() >= kChunkBytesLimit) write_chunk();
  };
  if (until != nullptr) {
    recorder_.drain_until(*until, visit, after_slice, translator_.lookahead());
  } else {
    recorder_.drain_all(visit, after_slice, translator_.lookahead());
  }
  drain_activity(later_after_ns);
}

void Writer::drain_activity(uint64_t later_after_ns) {
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    ChunkSink sink{chunk_, translator_.strings(), launches_.active() ? &launches_ : nullptr, later_after_ns};
    source->drain(sink);
  }
}

void Writer::note_launch(const ApiCallRecord& call) {
  // CUPTI's records of a call that succeeded in putting work on the GPU; a
  // call that began before the window opened may have launched while
  // CUPTI's activity kinds were still off, so it has no record to wait for.
  if (call.args == ApiCallArgs::none || call.return_code != 0 || call.start_ns < window_.start_ns ||
      call.backend != static_cast<uint8_t>(file::CaptureBackend::cupti)) {
    return;
  }
  launches_.launched(call.correlation_id);
}

uint32_t Writer::wait_for_window_launches(uint64_t end_ns) {
  ActivitySource* source = activity_source_.load(std::memory_order_acquire);
  if (source == nullptr || !launches_.active()) return 0;
  const uint64_t start = monotonic_ns();
  const uint64_t deadline = start + uint64_t{options_.window_wait_ms} * 1'000'000;
  while (launches_.outstanding() != 0 && monotonic_ns() < deadline) {
    // Not forced: a forced flush would hand over work launched after the
    // window (by a warmup step, or the next window) unfinished, and lose it.
    sleep_ms(1);
    source->request_delivery(false);
    drain_activity(end_ns);
  }
  const auto missing = static_cast<uint32_t>(launches_.outstanding());
  if (missing != 0) {
    log_info("window %u: the GPU records of %u operations launched inside it had not arrived %u ms after "
             "it ended; the file has their calls without them",
             window_.index, missing, options_.window_wait_ms);
  } else if (monotonic_ns() - start > 100'000'000) {
    log_debug("window %u: waited %llu ms for the GPU records of its launches", window_.index,
              static_cast<unsigned long long>((monotonic_ns() - start) / 1'000'000));
  }
  return missing;
}

void Writer::write_chunk() {
  // Between windows nothing is written; what was drained (thread names) waits
  // for the next window's file.
  if (options_.windowed && !window_active_) return;
  // A process that records nothing leaves no file: a shell or a launcher
  // started under LD_PRELOAD next to the real program should not litter.
  const bool has_records = !chunk_.empty();
  if (!file_.created() && !has_records) {
    chunk_.begin(monotonic_ns());
    return;
  }
  if (!file_.created() && !write_failed_ && !create_file()) fail();

  const file::DropCounts drops = drop_counts();
  if (final_drops_ || drops.ring_full != drops_written_.ring_full ||
      drops.cupti_records != drops_written_.cupti_records ||
      drops.truncated_payloads != drops_written_.truncated_payloads) {
    chunk_.set(drops);
    drops_written_ = drops;
  }
  const std::string& bytes = chunk_.finish();
  if (!write_failed_ && !over_budget(bytes.size()) && !file_.write(bytes)) fail();
  last_write_ns_ = monotonic_ns();
  chunk_.begin(last_write_ns_);
}

file::DropCounts Writer::drop_counts() const {
  file::DropCounts drops;
  drops.ring_full = recorder_.dropped();
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    drops.cupti_records = source->dropped();
  }
  drops.truncated_payloads = translator_.truncated_payloads();
  return drops;
}

void Writer::finish(uint64_t end_ns) {
  if (options_.windowed) {
    handle_window_events();
    if (!window_active_) return;  // the process ended between windows
    // The process ended inside a window: torch's profiler still saves it.
    file::ProcessEnd end;
    end.end_ns = end_ns;
    end.reason = static_cast<file::ProcessEnd::Reason>(end_reason_.load(std::memory_order_relaxed));
    end.signal = end_signal_.load(std::memory_order_relaxed);
    chunk_.set(end);
    // Its steps run from the first to the one in progress.
    const int64_t step = step_begun_.load(std::memory_order_relaxed);
    complete_window(window_.first_step >= 0 && step >= window_.first_step ? step : -1, end_ns, true);
    return;
  }
  translator_.close_open_ranges(end_ns, chunk_);
  if (!file_.created() && chunk_.empty()) return;  // nothing was ever recorded
  // Always state the final drop counts, even when zero: "no drops" is a fact.
  final_drops_ = true;
  file::ProcessEnd end;
  end.end_ns = end_ns;
  end.reason = static_cast<file::ProcessEnd::Reason>(end_reason_.load(std::memory_order_relaxed));
  end.signal = end_signal_.load(std::memory_order_relaxed);
  chunk_.set(end);
  write_chunk();
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire);
      source != nullptr && source->unfinished() != 0) {
    log_info("%llu GPU operations were still running when recording ended; they have no end "
             "time and are not in the file",
             static_cast<unsigned long long>(source->unfinished()));
  }
  if (const ThreadBuffer::WaitStats waits = recorder_.wait_stats(); waits.waits != 0) {
    log_debug("the app's threads waited %llu times for room in their rings (PROF_RING_WAIT_MS=%u), "
              "%.1f ms in all, %.1f ms at most; %llu waits reached the limit",
              static_cast<unsigned long long>(waits.waits), options_.ring_wait_ms, waits.waited_ns / 1e6,
              waits.longest_ns / 1e6, static_cast<unsigned long long>(waits.timeouts));
  }
  if (translator_.unmatched_range_ends() != 0) {
    log_info("%llu NVTX range ends had no matching start",
             static_cast<unsigned long long>(translator_.unmatched_range_ends()));
  }
}

// Nothing more can reach the file (unwritable directory, full disk): the
// agent turns itself off, so that the app's threads stop filling rings that
// nobody will write. The error has been said once already.
void Writer::fail() {
  write_failed_ = true;
  ThreadBuffer::set_wait_limit_ns(0);
  recorder_.stop_accepting();
}

}  // namespace prof

namespace prof {

std::string Writer::path() const { return options_.windowed ? last_window_path() : file_.path(); }

std::string Writer::last_window_path() const {
  std::lock_guard lock(windows_mutex_);
  return last_window_path_;
}

void Writer::begin_window(const WindowStart& start) {
  WindowEvent event;
  event.begin = true;
  event.start = start;
  push_window_event(std::move(event));
}

void Writer::end_window(int64_t last_step, uint64_t end_ns) {
  WindowEvent event;
  event.last_step = last_step;
  event.end_ns = end_ns;
  // The writer may handle this long after (a loaded machine): by then the
  // threads may have recorded the next window too.
  event.until = recorder_.positions();
  push_window_event(std::move(event));
}

void Writer::push_window_event(WindowEvent event) {
  {
    std::lock_guard lock(windows_mutex_);
    window_events_.push_back(std::move(event));
  }
  wake_writer();
}

void Writer::handle_window_events() {
  std::vector<WindowEvent> events;
  {
    std::lock_guard lock(windows_mutex_);
    events.swap(window_events_);
  }
  for (const WindowEvent& event : events) {
    if (event.begin) {
      if (window_active_) complete_window(-1, event.start.start_ns, true);
      window_ = event.start;
      window_active_ = true;
      if (ActivitySource* source = activity_source_.load(std::memory_order_acquire);
          source != nullptr && source->reports_launches()) {
        launches_.begin();
      }
      file_.close_and_rename(window_.path);
    } else if (window_active_) {
      complete_window(event.last_step, event.end_ns, false, &event.until);
    }
  }
}

void Writer::complete_window(int64_t last_step, uint64_t end_ns, bool partial,
                             const Recorder::Positions* until) {
  // The window's GPU work goes into its file: what CUPTI holds of it now,
  // then the records of launches still running, as they finish (bounded by
  // PROF_WINDOW_WAIT_MS). At the process's end run() has already forced
  // everything out.
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    source->request_delivery(false);
  }
  // GPU work of a later window the writer has not opened yet (it fell
  // behind) waits for it.
  drain(until, end_ns);
  const uint32_t missing = wait_for_window_launches(end_ns);
  launches_.end();
  translator_.close_open_ranges(end_ns, chunk_);
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
  chunk_.set(window);
  final_drops_ = true;
  write_chunk();
  const bool created = file_.created();
  const uint64_t bytes = file_.bytes_written();
  total_bytes_.fetch_add(bytes, std::memory_order_relaxed);
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
  file_.close_and_rename(std::string());
  {
    std::lock_guard lock(windows_mutex_);
    if (created) last_window_path_ = window_.path;
  }
  windows_completed_.fetch_add(1, std::memory_order_release);
  window_active_ = false;
  // The next file is read on its own: strings, stacks and threads are
  // defined again in it.
  translator_ = Translator(read_thread_name);
  chunk_.begin(monotonic_ns());
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    ChunkSink sink{chunk_, translator_.strings()};
    source->restate(sink);
  }
  drops_written_ = {};
  final_drops_ = false;
  write_failed_ = false;
}

bool Writer::over_budget(size_t next_bytes) {
  if (budget_spent_) return true;
  if (options_.max_bytes == 0) return false;
  if (total_bytes_.load(std::memory_order_relaxed) + file_.bytes_written() + next_bytes <= options_.max_bytes) {
    return false;
  }
  budget_spent_ = true;
  log_error("PROF_MAX_MB=%llu reached (%llu bytes written); recording stops here",
            static_cast<unsigned long long>(options_.max_bytes >> 20),
            static_cast<unsigned long long>(total_bytes_.load() + file_.bytes_written()));
  if (options_.on_budget_spent != nullptr) options_.on_budget_spent(monotonic_ns());
  return true;
}

}  // namespace prof
