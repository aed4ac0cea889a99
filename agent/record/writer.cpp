#include "record/writer.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "common/clock.h"
#include "common/futex.h"
#include "common/host_clock.h"
#include "common/log.h"
#include "common/proc_self.h"
#include "record/records.h"

namespace prof {
namespace {

// A chunk is written early once this much is pending, which bounds the
// writer's memory and the reader's per-chunk memory (FORMAT.md).
constexpr size_t kChunkBytesLimit = 4u << 20;
// The least span of the first two calibration pairs (Writer::calibrate).
constexpr uint64_t kSecondPairAfterNs = 50'000;

}  // namespace

Writer::Writer(Recorder& recorder, Options options, file::Process process)
    : recorder_(recorder),
      options_(std::move(options)),
      process_(std::move(process)),
      file_(options_.windowed ? std::string() : options_.path),
      windows_(recorder, options_.windows) {}

Writer::~Writer() {
  close_if_ours(wake_);
}

bool Writer::prepare() {
  // Read here rather than at start-up: a process that never records (a
  // shell under an exported LD_PRELOAD) should not pay for them.
  if (process_.executable.empty()) process_.executable = executable_path();
  if (process_.command_line.empty()) process_.command_line = command_line();
  // Its tables too (their first pages are a process's few page faults).
  translator_ = std::make_unique<Translator>(read_thread_name);
  translator_->use_clock(&clock_);
  // The app's first record chose the clock (or this does); its first pair
  // starts the calibration.
  clock_ = TickCalibration(!host_ticks_are_tsc());
  clock_.add(first_tick_pair());
  log_debug("timestamps from %s", clock_.identity() ? "clock_gettime(CLOCK_MONOTONIC)" : "the invariant TSC");
  wake_ = keep_out_of_the_way(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  wake_fd_.store(wake_.fd, std::memory_order_release);
  if (wake_.fd < 0) {
    log_error("eventfd: %s; recording is off", strerror(errno));
    return false;
  }
  return true;
}

void Writer::hold_for_fork() {
  // A thread just made may not have reached its loop: the start of a thread
  // allocates (AddressSanitizer's asks glibc for its stack's bounds, which
  // reallocs), and a fork in the middle of it left the child's first
  // allocation of that size waiting forever. That start takes microseconds.
  while (running_.load(std::memory_order_acquire) && !in_loop_.load(std::memory_order_acquire)) sched_yield();
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
// function pointer, so the descriptor lives here). Not in AgentState: the
// Writer runs in unit tests with no agent around it.
std::atomic<int> g_wake_fd{-1};
// What an eventfd is (every eventfd is the same anonymous inode): a number
// the program took over names something else, and is not written to. Beside
// g_wake_fd for the same reason: the half-full hook reads them, with no Writer.
std::atomic<dev_t> g_eventfd_device{0};
std::atomic<ino_t> g_eventfd_inode{0};

// Async-signal-safe (fstat, write).
void wake(int fd) {
  if (fd < 0) return;
  const OwnFd expected{fd, g_eventfd_device.load(std::memory_order_relaxed),
                       g_eventfd_inode.load(std::memory_order_relaxed)};
  if (!still_ours(expected)) return;  // the writer renews it on its next pass
  const uint64_t one = 1;
  ssize_t ignored = ::write(fd, &one, sizeof(one));
  (void)ignored;
}

void wake_writer() { wake(g_wake_fd.load(std::memory_order_acquire)); }
}  // namespace

void Writer::renew_wake_fd_if_taken() {
  if (still_ours(wake_)) return;
  OwnFd renewed = keep_out_of_the_way(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (renewed.fd < 0) return;  // polls time out instead: flushes wait a drain interval
  wake_ = renewed;
  wake_fd_.store(wake_.fd, std::memory_order_release);
  g_wake_fd.store(wake_.fd, std::memory_order_release);
  log_debug("the program closed the writer's eventfd; made another");
}

void Writer::start() {
  running_.store(true, std::memory_order_release);
  g_eventfd_device.store(wake_.device, std::memory_order_relaxed);
  g_eventfd_inode.store(wake_.inode, std::memory_order_relaxed);
  g_wake_fd.store(wake_.fd, std::memory_order_release);
  windows_.set_wake(wake_writer);
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
  wake(wake_fd_.load(std::memory_order_acquire));  // async-signal-safe
  return ticket;
}

bool Writer::flush_for_handler(bool final, int signal, uint32_t timeout_ms) {
  handlers_waiting_.fetch_add(1, std::memory_order_acq_rel);
  const bool written =
      wait_until_written(request_flush(final, file::ProcessEnd::Reason::signal, signal), timeout_ms);
  handlers_waiting_.fetch_sub(1, std::memory_order_acq_rel);
  return written;
}

void Writer::announce_written() {
  written_changes_.fetch_add(1, std::memory_order_release);
  futex_wake_all(written_changes_);
}

bool Writer::wait_until_written(uint64_t ticket, uint32_t timeout_ms) const {
  // A deadline on the clock: on a loaded machine a sleep can last much
  // longer than asked.
  const uint64_t deadline = monotonic_ns() + uint64_t{timeout_ms} * 1'000'000;
  for (;;) {
    // Read before the checks: a change after them makes the futex return at once.
    const uint32_t changes = written_changes_.load(std::memory_order_acquire);
    if (written_.load(std::memory_order_acquire) >= ticket) return true;
    if (!running_.load(std::memory_order_acquire)) {
      // The final flush may have ended the writer after writing this ticket.
      return written_.load(std::memory_order_acquire) >= ticket;
    }
    const uint64_t now = monotonic_ns();
    if (now >= deadline) return false;
    // Until the writer announces a write; at most 10 ms, so that the clock
    // and a writer that died without a word are looked at again. 1 ms naps
    // cost every recording process's exit up to a millisecond after its
    // last chunk was written (tiny_kernels: 3-23 naps per exit).
    futex_wait(written_changes_, changes, std::min<uint64_t>(deadline - now, 10'000'000));
  }
}

void Writer::join() {
  if (thread_.joinable()) thread_.join();
}

void Writer::run() {
  // Held but in poll(), where this thread cannot be inside malloc: see
  // hold_for_fork().
  std::unique_lock pass(pass_mutex_);
  in_loop_.store(true, std::memory_order_release);
  last_write_ns_ = monotonic_ns();
  for (;;) {
    renew_wake_fd_if_taken();
    pollfd woken{wake_.fd, POLLIN, 0};
    pass.unlock();
    poll(&woken, 1, static_cast<int>(options_.drain_interval_ms));
    pass.lock();
    uint64_t ignored;
    // Never read a number the program took over: that would steal its data.
    while (still_ours(wake_) && ::read(wake_.fd, &ignored, sizeof(ignored)) > 0) {
    }
    // Read the tickets before draining: everything recorded before a request
    // was made is in the buffers by now.
    const uint64_t ticket = requested_.load(std::memory_order_acquire);
    const bool final = final_requested_.load(std::memory_order_acquire);
    if (options_.on_pass != nullptr && !final) options_.on_pass(monotonic_ns());
    // This pass drains what was recorded before it began: on the TSC, so
    // that every time it converts precedes the pair drain() reads (see
    // tick_calibration.h); with windows, because a record committed later
    // may belong to a window whose end or start the next pass handles
    // first (GPU work that started after that waits for the next pass
    // likewise). The final pass drains everything.
    std::optional<Recorder::Positions> until;
    uint64_t later_after_ns = UINT64_MAX;
    if (!final && (options_.windowed || !clock_.identity())) {
      until = recorder_.positions();
      if (options_.windowed) later_after_ns = monotonic_ns();
    }
    windows_.handle_events(*this);
    if (final) {
      // Threads still recording as the process ends must not wait for a
      // writer that is about to stop.
      ThreadBuffer::set_wait_limit_ns(0);
      // The GPU work still running is waited for, and what CUPTI holds
      // forced out, in finish(), after this drain.
    }
    drain(until ? &*until : nullptr, later_after_ns);
    if (options_.windowed && !final && !windows_.window_active()) between_windows();
    if (recorder_.recording_started()) claim_path();
    const uint64_t now = monotonic_ns();
    if (final) {
      finish(now);
      if (options_.on_ended_by_signal != nullptr &&
          end_reason_.load(std::memory_order_relaxed) == static_cast<uint32_t>(file::ProcessEnd::Reason::signal)) {
        options_.on_ended_by_signal();
      }
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
        source->deliver(false, handler_waits());
        // The pass's pair, read after `until`, serves this drain too: it
        // drains no ring record past `until`. A second pair, at the end of a
        // delivery that may take long, only split the next pass's segment:
        // the calls in flight across it began outside the last two segments,
        // and each took a search (one call in seven, callgrind, tiny_kernels).
        drain_after_calibration(until ? &*until : nullptr, later_after_ns);
      }
      write_chunk();
      written_.store(ticket, std::memory_order_release);
      announce_written();
    }
  }
  running_.store(false, std::memory_order_release);
  announce_written();  // the final ticket's, and a stopped writer's
}

void Writer::calibrate() {
  if (clock_.identity()) return;
  TickPair pair = read_tick_pair();
  if (clock_.pairs() < 2) {
    // The second pair sets the rate: far enough from the first that their
    // few ns of reading error are a small part of the span (a process that
    // records for a few microseconds before it ends).
    while (pair.ns - clock_.last_pair().ns < kSecondPairAfterNs) pair = read_tick_pair();
  }
  clock_.add(pair);
  publish_ns_per_tick(clock_.ns_per_tick_q32());
}

void Writer::between_windows() {
  ActivitySource* source = activity_source_.load(std::memory_order_acquire);
  if (source == nullptr) return;
  if (windows_.events_pending()) return;  // a window begins (or ends) on the next pass
  ChunkSink sink = activity_sink();
  source->between_windows(sink);
}

ChunkSink Writer::activity_sink(uint64_t later_after_ns) {
  WindowLaunches* in_flight = in_flight_.active() ? &in_flight_ : nullptr;
  return ChunkSink{chunk_, translator_->strings(), windows_.launches(), later_after_ns, in_flight, handler_waits()};
}

void Writer::drain(const Recorder::Positions* until, uint64_t later_after_ns) {
  // A pair read after `until` was taken (by this pass, or by a window's
  // end): every record drained up to it was committed before the pair, so
  // its times are placed between two pairs, as they will be by any later
  // conversion of the same ticks.
  calibrate();
  drain_after_calibration(until, later_after_ns);
}

void Writer::drain_after_calibration(const Recorder::Positions* until, uint64_t later_after_ns) {
  if (!options_.windowed && !in_flight_.active()) {
    // From the first pass that knows CUPTI is the source: calls drained
    // before are not waited for at exit (their records still count).
    if (ActivitySource* source = activity_source(); source != nullptr && source->reports_launches()) {
      in_flight_.begin();
    }
  }
  auto visit = [this](const ThreadBuffer& buffer, const RecordHeader& header) {
    translator_->translate(buffer, header, chunk_);
    if (header.type != static_cast<uint16_t>(RecordType::api_call)) return;
    const auto& call = reinterpret_cast<const ApiCallRecord&>(header);
    captures_.note(call);
    if (captures_.any_open()) return;  // captured work never runs: no record to wait for
    if (windows_.launches() != nullptr) windows_.note_launch(call, clock_.to_ns(call.start_ticks));
    if (in_flight_.active() && cupti_will_report_work(call)) in_flight_.launched(call.correlation_id);
  };
  auto after_slice = [this] {
    if (chunk_.pending_bytes() >= kChunkBytesLimit) write_chunk();
  };
  if (until != nullptr) {
    recorder_.drain_until(*until, visit, after_slice, translator_->lookahead());
  } else {
    recorder_.drain_all(visit, after_slice, translator_->lookahead());
  }
  drain_activity(later_after_ns);
}

void Writer::drain_activity(uint64_t later_after_ns) {
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    ChunkSink sink = activity_sink(later_after_ns);
    source->drain(sink);
  }
}

void Writer::write_chunk() {
  // Between windows nothing is written; what was drained (thread names) waits
  // for the next window's file.
  if (options_.windowed && !windows_.window_active()) return;
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
  const ChunkEncoder::Pieces& chunk = chunk_.finish_in_pieces();
  if (!write_failed_ && !windows_.over_budget(file_.bytes_written(), chunk.bytes) &&
      !file_.write(chunk.parts.data(), chunk.count)) {
    fail();
  }
  last_write_ns_ = monotonic_ns();
  chunk_.begin(last_write_ns_);
}

file::DropCounts Writer::drop_counts() const {
  file::DropCounts drops;
  drops.ring_full = recorder_.dropped();
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    drops.cupti_records = source->dropped();
  }
  drops.truncated_payloads = translator_->truncated_payloads();
  return drops;
}

uint64_t Writer::gpu_work_outstanding(const ActivitySource& source) {
  if (!source.reports_launches()) return source.work_running(UINT64_MAX);
  const WindowLaunches* launches = options_.windowed ? windows_.launches() : &in_flight_;
  return launches != nullptr && launches->active() ? launches->outstanding() : 0;
}

void Writer::wait_for_gpu_work(ActivitySource& source, uint64_t wait_until_ns) {
  // Polled, never blocking in CUDA: a kernel that never ends must not hold
  // the process's exit. Not forced: a forced flush hands over running work
  // unfinished, and its record is then lost for good. Asked before the
  // first nap: at exit the work has mostly finished, and only its records
  // are still in CUPTI (a nap first cost every exit a millisecond).
  while (gpu_work_outstanding(source) != 0 && monotonic_ns() < wait_until_ns && !handler_waits().now()) {
    source.deliver(false, handler_waits());
    drain_activity();
    if (gpu_work_outstanding(source) == 0) break;
    sleep_ms(1);
  }
}

uint32_t Writer::finish_gpu_work(uint64_t wait_until_ns, bool ended_by_signal) {
  ActivitySource* source = activity_source();
  if (source == nullptr) return 0;
  // What CUPTI still holds is forced into the last chunk after the wait
  // (records of work still running come unfinished, and are counted).
  // Done here rather than by whoever asked for the end: a signal handler
  // must not call into CUPTI. Neither the wait nor the flush when a signal
  // ends the process (a crash, SIGTERM, SIGINT): the thread it interrupted
  // may be inside a CUDA call holding CUPTI's or the driver's locks, and it
  // waits in the handler for this very flush (SIGTERM to a loop of
  // cudaMalloc deadlocked here in 3 runs of 6, and the process died at the
  // handler's bound with no end-of-run line). What CUPTI holds then, at
  // most the last flush interval's GPU work, is counted as missing.
  if (!ended_by_signal) {
    wait_for_gpu_work(*source, wait_until_ns);
    source->deliver(true, handler_waits());
  }
  drain_activity();
  uint64_t missing = gpu_work_outstanding(*source);
  // Event timing's operations it could not read (their context destroyed)
  // never came either; CUPTI's unfinished records are among the outstanding.
  if (!source->reports_launches()) missing += source->unfinished();
  return static_cast<uint32_t>(std::min<uint64_t>(missing, UINT32_MAX));
}

void Writer::finish(uint64_t end_ns) {
  file::ProcessEnd end;
  end.end_ns = end_ns;
  end.reason = static_cast<file::ProcessEnd::Reason>(end_reason_.load(std::memory_order_relaxed));
  end.signal = end_signal_.load(std::memory_order_relaxed);
  // PROF_WINDOW_WAIT_MS, the bound of a window's wait for its GPU records,
  // bounds this one too.
  const uint64_t wait_until_ns = monotonic_ns() + uint64_t{options_.windows.window_wait_ms} * 1'000'000;
  end.gpu_records_missing = finish_gpu_work(wait_until_ns, end.signal != 0);
  gpu_records_missing_.store(end.gpu_records_missing, std::memory_order_relaxed);
  if (options_.windowed) {
    windows_.finish(*this, end, wait_until_ns);
    return;
  }
  translator_->close_open_ranges(end_ns, chunk_);
  if (!file_.created() && chunk_.empty()) return;  // nothing was ever recorded
  // Always state the final drop counts, even when zero: "no drops" is a fact.
  final_drops_ = true;
  chunk_.set(end);
  write_chunk();
  file_.close();  // the last chunk: nothing more is written to it
  if (const ThreadBuffer::WaitStats waits = recorder_.wait_stats(); waits.waits != 0) {
    log_debug("the app's threads waited %llu times for room in their rings (PROF_RING_WAIT_MS=%u), "
              "%.1f ms in all, %.1f ms at most; %llu waits reached the limit",
              static_cast<unsigned long long>(waits.waits), options_.ring_wait_ms, waits.waited_ns / 1e6,
              waits.longest_ns / 1e6, static_cast<unsigned long long>(waits.timeouts));
  }
  if (translator_->unmatched_range_ends() != 0) {
    log_info("%llu NVTX range ends had no matching start",
             static_cast<unsigned long long>(translator_->unmatched_range_ends()));
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

std::string Writer::path() const { return options_.windowed ? windows_.last_window_path() : file_.path(); }

void Writer::open_file(const std::string& path) { file_.close_and_rename(path); }

uint64_t Writer::close_file(const file::Window& window, const file::ProcessEnd* end) {
  translator_->close_open_ranges(window.end_ns, chunk_);
  // A process that has recorded nothing writes no window file: a launcher
  // or a shell started under the same LD_PRELOAD and PROF_DURATION would
  // otherwise put its empty window in PROF_OUTPUT, over the program's.
  if (file_.created() || recorder_.recording_started()) {
    if (end != nullptr) chunk_.set(*end);
    chunk_.set(window);
    final_drops_ = true;
    write_chunk();
  }
  const uint64_t bytes = file_.created() ? file_.bytes_written() : 0;
  file_.close_and_rename(std::string());
  // The next file is read on its own: strings, stacks and threads are
  // defined again in it.
  translator_ = std::make_unique<Translator>(read_thread_name);
  translator_->use_clock(&clock_);
  chunk_.begin(monotonic_ns());
  if (ActivitySource* source = activity_source()) {
    ChunkSink sink{chunk_, translator_->strings()};
    source->restate(sink);
  }
  drops_written_ = {};
  final_drops_ = false;
  write_failed_ = false;
  return bytes;
}

}  // namespace prof
