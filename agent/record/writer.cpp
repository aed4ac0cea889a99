#include "record/writer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/clock.h"
#include "common/log.h"
#include "record/records.h"

namespace prof {
namespace {

// A chunk is written early once this much is pending, which bounds the
// writer's memory and the reader's per-chunk memory (FORMAT.md).
constexpr size_t kChunkBytesLimit = 4u << 20;

std::string read_thread_name(uint32_t tid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char name[64] = {};
  ssize_t n = ::read(fd, name, sizeof(name) - 1);
  ::close(fd);
  if (n <= 0) return {};
  std::string result(name, static_cast<size_t>(n));
  while (!result.empty() && result.back() == '\n') result.pop_back();
  return result;
}

void sleep_ms(uint32_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

}  // namespace

Writer::Writer(Recorder& recorder, const AgentConfig& config, ProcessInfo process)
    : recorder_(recorder), config_(config), path_(config.output_path), process_(std::move(process)) {}

Writer::~Writer() {
  if (fd_ >= 0) ::close(fd_);
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

bool Writer::create_file() {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    log_error("cannot create %s: %s; recording is off", path_.c_str(), strerror(errno));
    return false;
  }
  // The process description is the first chunk, so that even a run killed
  // right after its first write leaves a file that says what it was.
  ChunkEncoder first;
  first.begin(process_.start_ns);
  first.set(process_);
  return write_all(encode_file_preamble("libprof " PROF_VERSION)) && write_all(first.finish());
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

uint64_t Writer::request_flush(bool final, EndReason reason, int signal) {
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
    poll(&wake, 1, static_cast<int>(config_.drain_interval_ms));
    std::lock_guard pass(pass_mutex_);  // see hold_for_fork()
    uint64_t ignored;
    while (::read(wake_fd_, &ignored, sizeof(ignored)) > 0) {
    }
    // Read the tickets before draining: everything recorded before a request
    // was made is in the buffers by now.
    const uint64_t ticket = requested_.load(std::memory_order_acquire);
    const bool final = final_requested_.load(std::memory_order_acquire);
    if (final) {
      // Everything CUPTI still holds, unfinished work included, is part of
      // the last chunk. Done here rather than by whoever asked for the end:
      // a signal handler must not call into CUPTI.
      if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
        source->request_delivery(true);
      }
    }
    drain();
    const uint64_t now = monotonic_ns();
    if (final) {
      finish(now);
      written_.store(ticket, std::memory_order_release);
      break;
    }
    const bool requested = ticket > written_.load(std::memory_order_relaxed);
    const bool due = now - last_write_ns_ >= uint64_t{config_.flush_interval_ms} * 1'000'000;
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
        drain();
      }
      write_chunk();
      written_.store(ticket, std::memory_order_release);
    }
  }
  running_.store(false, std::memory_order_release);
}

void Writer::drain() {
  recorder_.drain_all(
      [this](const ThreadBuffer& buffer, const RecordHeader& header) { handle(buffer, header); },
      [this] {
        if (chunk_.pending_bytes() >= kChunkBytesLimit) write_chunk();
      });
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    FileSink sink{chunk_, strings_};
    source->drain(sink);
  }
}

void Writer::note_thread(const ThreadBuffer& buffer) {
  if (!known_threads_.insert(buffer.tid()).second) return;
  std::string name = read_thread_name(buffer.tid());
  if (name.empty()) name = buffer.name_at_start();
  chunk_.add(ThreadInfo{buffer.tid(), std::move(name)});
}

void Writer::handle(const ThreadBuffer& buffer, const RecordHeader& header) {
  const uint32_t tid = buffer.tid();
  if (tid != last_noted_tid_) {  // records come in runs per thread buffer
    note_thread(buffer);
    last_noted_tid_ = tid;
  }
  switch (static_cast<RecordType>(header.type)) {
    case RecordType::nvtx_push:
    case RecordType::nvtx_range_start:
    case RecordType::nvtx_mark: {
      const auto& event = reinterpret_cast<const NvtxEventRecord&>(header);
      NvtxRangeAssembler::Begin begin;
      // Domain handles live for the process with one name (nvtx_capture.cpp).
      begin.domain_id = event.domain ? strings_.intern_static(event.domain->name, chunk_) : 0;
      begin.name_id = strings_.intern({payload_of(event), header.payload_bytes}, chunk_);
      begin.time_ns = event.time_ns;
      begin.color_argb = event.color_argb;
      begin.category = event.category;
      if (header.payload_bytes == kMaxPayloadString) ++truncated_payloads_;
      if (header.type == static_cast<uint16_t>(RecordType::nvtx_push)) {
        ranges_.push(tid, begin);
      } else if (header.type == static_cast<uint16_t>(RecordType::nvtx_range_start)) {
        ranges_.start(event.range_id, tid, begin);
      } else {
        chunk_.add(NvtxMark{tid, begin.domain_id, begin.name_id, begin.time_ns,
                            begin.color_argb, begin.category});
      }
      break;
    }
    case RecordType::nvtx_pop: {
      const auto& event = reinterpret_cast<const NvtxEventRecord&>(header);
      const uint64_t domain_id = event.domain ? strings_.intern_static(event.domain->name, chunk_) : 0;
      NvtxRange range;
      if (ranges_.pop(tid, domain_id, event.time_ns, range)) {
        chunk_.add(range);
      } else {
        ++unmatched_range_ends_;
      }
      break;
    }
    case RecordType::nvtx_range_end: {
      const auto& event = reinterpret_cast<const NvtxEventRecord&>(header);
      NvtxRange range;
      if (ranges_.end(event.range_id, tid, event.time_ns, range)) {
        chunk_.add(range);
      } else {
        ++unmatched_range_ends_;
      }
      break;
    }
    case RecordType::thread_name: {
      const auto& named = reinterpret_cast<const ThreadNameRecord&>(header);
      known_threads_.insert(named.tid);
      chunk_.add(ThreadInfo{named.tid, std::string(payload_of(named), header.payload_bytes)});
      break;
    }
    case RecordType::api_call:
      handle_api_call(tid, reinterpret_cast<const ApiCallRecord&>(header));
      break;
    case RecordType::padding:
      break;
  }
}

void Writer::handle_api_call(uint32_t tid, const ApiCallRecord& record) {
  ApiCall call;
  call.tid = tid;
  call.domain = static_cast<ApiDomain>(record.domain);
  call.callback_id = record.callback_id;
  call.name_id = api_name_id(record);
  call.start_ns = record.start_ns;
  call.end_ns = record.end_ns;
  call.correlation_id = record.correlation_id;
  call.return_code = record.return_code;
  const auto* frames = reinterpret_cast<const uint64_t*>(payload_of(record));
  call.stack_id = stacks_.intern(frames, record.stack_depth, chunk_);
  switch (record.args) {
    case ApiCallArgs::launch: {
      call.has_launch = true;
      LaunchArgs& launch = call.launch;
      const char* name = reinterpret_cast<const char*>(frames + record.stack_depth);
      if (record.kernel_name_bytes != 0) {
        launch.kernel_name_id = strings_.intern({name, record.kernel_name_bytes}, chunk_);
      }
      for (int i = 0; i < 3; ++i) {
        launch.grid[i] = record.grid[i];
        launch.block[i] = record.block[i];
      }
      launch.dynamic_shared_bytes = record.shared_bytes;
      launch.stream = record.stream;
      break;
    }
    case ApiCallArgs::copy:
    case ApiCallArgs::memset:
      call.has_transfer = true;
      call.transfer.bytes = record.bytes;
      call.transfer.kind = static_cast<CopyKind>(record.copy_kind);
      call.transfer.stream = record.stream;
      call.transfer.is_memset = record.args == ApiCallArgs::memset;
      break;
    case ApiCallArgs::none:
      break;
  }
  chunk_.add(call);
}

uint64_t Writer::api_name_id(const ApiCallRecord& record) {
  // CUPTI names each (domain, callback id) with one static string: an array
  // lookup instead of a hash per record. The address check keeps it exact
  // should a producer ever name one id differently.
  std::vector<ApiName>& names = api_names_[record.domain < api_names_.size() ? record.domain : 0];
  if (record.callback_id < names.size()) {
    const ApiName& known = names[record.callback_id];
    if (known.function_name == record.function_name && known.id != 0) return known.id;
  } else {
    names.resize(record.callback_id + 1u);
  }
  const uint64_t id = strings_.intern_static(record.function_name, chunk_);
  names[record.callback_id] = {record.function_name, id};
  return id;
}

void Writer::write_chunk() {
  // A process that records nothing leaves no file: a shell or a launcher
  // started under LD_PRELOAD next to the real program should not litter.
  const bool has_records = !chunk_.empty();
  if (fd_ < 0 && !has_records) {
    chunk_.begin(monotonic_ns());
    return;
  }
  if (fd_ < 0 && !write_failed_ && !create_file()) write_failed_ = true;

  DropCounts drops;
  drops.ring_full = recorder_.dropped();
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire)) {
    drops.cupti_records = source->dropped();
  }
  drops.truncated_payloads = truncated_payloads_;
  if (final_drops_ || drops.ring_full != drops_written_.ring_full ||
      drops.cupti_records != drops_written_.cupti_records ||
      drops.truncated_payloads != drops_written_.truncated_payloads) {
    chunk_.set(drops);
    drops_written_ = drops;
  }
  if (!write_failed_ && !write_all(chunk_.finish())) write_failed_ = true;
  last_write_ns_ = monotonic_ns();
  chunk_.begin(last_write_ns_);
}

void Writer::finish(uint64_t end_ns) {
  for (const NvtxRange& range : ranges_.close_all(end_ns)) chunk_.add(range);
  if (fd_ < 0 && chunk_.empty()) return;  // nothing was ever recorded
  // Always state the final drop counts, even when zero: "no drops" is a fact.
  final_drops_ = true;
  ProcessEnd end;
  end.end_ns = end_ns;
  end.reason = static_cast<EndReason>(end_reason_.load(std::memory_order_relaxed));
  end.signal = end_signal_.load(std::memory_order_relaxed);
  chunk_.set(end);
  write_chunk();
  if (ActivitySource* source = activity_source_.load(std::memory_order_acquire);
      source != nullptr && source->unfinished() != 0) {
    log_info("%llu GPU operations were still running when recording ended; they have no end "
             "time and are not in the file",
             static_cast<unsigned long long>(source->unfinished()));
  }
  if (unmatched_range_ends_ != 0) {
    log_info("%llu NVTX range ends had no matching start",
             static_cast<unsigned long long>(unmatched_range_ends_));
  }
}

bool Writer::write_all(const std::string& bytes) {
  const char* data = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      log_error("writing %s failed: %s; recording stops here", path_.c_str(), strerror(errno));
      return false;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  bytes_written_.fetch_add(bytes.size(), std::memory_order_relaxed);
  return true;
}

}  // namespace prof
