#include "truth_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <string>

#include "sim_config.h"

namespace simcuda {
namespace {

const char* copy_kind_name(uint8_t kind) {
  switch (kind) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 3: return "HtoA";
    case 4: return "AtoH";
    case 5: return "AtoA";
    case 6: return "AtoD";
    case 7: return "DtoA";
    case 8: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    default: return "unknown";
  }
}

const char* memory_kind_name(uint32_t kind) {
  switch (kind) {
    case 1: return "pageable";
    case 2: return "pinned";
    case 3: return "device";
    case 4: return "array";
    case 5: return "managed";
    default: return "unknown";
  }
}

const char* sync_type_name(uint32_t type) {
  switch (type) {
    case 1: return "event";
    case 2: return "stream_wait_event";
    case 3: return "stream";
    case 4: return "context";
    default: return "unknown";
  }
}

void append_json_string(std::string& out, const char* text) {
  out += '"';
  for (const char* p = text ? text : ""; *p; ++p) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

// The file is opened lazily and every line goes to the kernel as it is written
// (one write(2) per line, O_APPEND), so the log is complete whatever way the
// program ends: exit, _exit, a crash or a kill.
class TruthFile {
 public:
  TruthFile() {
    const std::string& path = config().truth_path;
    if (path.empty()) return;
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      std::fprintf(stderr, "simcuda: cannot open SIMCUDA_TRUTH file %s\n", path.c_str());
      return;
    }
    char header[160];
    std::snprintf(header, sizeof header,
                  "{\"type\":\"process\",\"pid\":%d,\"devices\":%d,\"clock\":\"CLOCK_MONOTONIC\"}",
                  static_cast<int>(getpid()), config().device_count);
    write(header);
  }
  // Never closed: other libraries' destructors may still make API calls.
  bool enabled() const { return fd_ >= 0; }
  void write(std::string line) {
    line += '\n';
    std::lock_guard<std::mutex> lock(mutex_);  // keeps lines whole and in order
    pad_to_page_if_crossing(line.size());
    write_all(line.data(), line.size());
  }

 private:
  // A SIGKILL can end a write(2) to a file between two pages: the kernel
  // checks for a fatal signal before copying each page into the page cache.
  // A line within one page is therefore written whole or not at all. One
  // that would cross a page boundary is preceded by a blank line filling the
  // page (readers skip blank lines); a line longer than a page cannot be
  // kept whole. The size is asked of the file, not counted here, because
  // forked children append to the same file.
  void pad_to_page_if_crossing(size_t length) {
    constexpr size_t kPage = 4096;
    struct stat status {};
    if (length > kPage || ::fstat(fd_, &status) != 0) return;
    const size_t in_page = static_cast<size_t>(status.st_size) % kPage;
    if (in_page == 0 || in_page + length <= kPage) return;
    std::string blank(kPage - in_page, ' ');
    blank.back() = '\n';
    write_all(blank.data(), blank.size());
  }

  void write_all(const char* data, size_t size) {
    size_t done = 0;
    while (done < size) {
      ssize_t n = ::write(fd_, data + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

  std::mutex mutex_;
  int fd_ = -1;
};

TruthFile& truth_file() {
  static TruthFile* instance = new TruthFile;  // leaked: used until the very end
  return *instance;
}

}  // namespace

bool truth_enabled() { return truth_file().enabled(); }

void truth_api(const SimApiCall& call) {
  std::string line = "{\"type\":\"api\",\"domain\":";
  line += call.domain == 2 ? "\"runtime\"" : "\"driver\"";
  line += ",\"name\":";
  append_json_string(line, call.function_name);
  char numbers[256];
  std::snprintf(numbers, sizeof numbers,
                ",\"cbid\":%u,\"corr\":%u,\"depth\":%u,\"tid\":%u,\"start\":%" PRIu64
                ",\"end\":%" PRIu64 ",\"result\":%d",
                call.cbid, call.correlation_id, call.depth, call.thread_id, call.start_ns,
                call.end_ns, call.result);
  line += numbers;
  if (call.symbol_name != nullptr) {
    line += ",\"symbol\":";
    append_json_string(line, call.symbol_name);
  }
  line += '}';
  truth_file().write(line);
}

void truth_operation(const SimOperation& op) {
  static const char* const kinds[] = {"", "kernel", "memcpy", "memset", "host_function"};
  std::string line = "{\"type\":\"";
  line += kinds[op.kind <= 4 ? op.kind : 0];
  line += "\",\"name\":";
  append_json_string(line, op.name);
  char numbers[512];
  std::snprintf(numbers, sizeof numbers,
                ",\"device\":%u,\"context\":%u,\"stream\":%u,\"corr\":%u,\"queued\":%" PRIu64
                ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"bytes\":%" PRIu64
                ",\"graph\":%u,\"graph_node\":%" PRIu64,
                op.device, op.context_id, op.stream_id, op.correlation_id, op.queued_ns,
                op.start_ns, op.end_ns, op.bytes, op.graph_id, op.graph_node_id);
  line += numbers;
  if (op.kind == SIM_OP_KERNEL) {
    std::snprintf(numbers, sizeof numbers,
                  ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],\"shared\":%d,\"launch_type\":%u,"
                  "\"cluster\":[%u,%u,%u]",
                  op.grid[0], op.grid[1], op.grid[2], op.block[0], op.block[1], op.block[2],
                  op.dynamic_shared_memory, op.launch_type, op.cluster[0], op.cluster[1], op.cluster[2]);
    line += numbers;
  } else if (op.kind == SIM_OP_MEMCPY) {
    std::snprintf(numbers, sizeof numbers,
                  ",\"copy_kind\":\"%s\",\"src_kind\":\"%s\",\"dst_kind\":\"%s\",\"async\":%u",
                  copy_kind_name(op.copy_kind), memory_kind_name(op.src_kind),
                  memory_kind_name(op.dst_kind), op.is_async);
    line += numbers;
    if (op.copy_kind == 10) {
      std::snprintf(numbers, sizeof numbers, ",\"src_device\":%u,\"dst_device\":%u", op.src_device, op.dst_device);
      line += numbers;
    }
  } else if (op.kind == SIM_OP_MEMSET) {
    std::snprintf(numbers, sizeof numbers, ",\"value\":%u,\"dst_kind\":\"%s\",\"async\":%u",
                  op.memset_value, memory_kind_name(op.dst_kind), op.is_async);
    line += numbers;
  }
  line += '}';
  truth_file().write(line);
}

void truth_memory(const SimMemoryEvent& event) {
  static const char* const types[] = {"", "alloc", "free", "pool_created", "pool_destroyed", "pool_trimmed"};
  char line[768];
  int length = std::snprintf(line, sizeof line,
                "{\"type\":\"%s\",\"memory_kind\":\"%s\",\"device\":%u,\"context\":%u,"
                "\"stream\":%u,\"corr\":%u,\"async\":%u,\"address\":%" PRIu64
                ",\"bytes\":%" PRIu64 ",\"time\":%" PRIu64,
                types[event.operation <= SIM_MEMORY_POOL_TRIMMED ? event.operation : 0],
                memory_kind_name(event.memory_kind), event.device, event.context_id,
                event.stream_id, event.correlation_id, event.is_async, event.address,
                event.bytes, event.timestamp_ns);
  if (event.pool_address != 0 && length > 0 && static_cast<size_t>(length) < sizeof line) {
    length += std::snprintf(line + length, sizeof line - static_cast<size_t>(length),
                            ",\"pool\":%" PRIu64 ",\"pool_reserved\":%" PRIu64 ",\"pool_used\":%" PRIu64
                            ",\"pool_release_threshold\":%" PRIu64 ",\"pool_min_bytes_to_keep\":%" PRIu64,
                            event.pool_address, event.pool_reserved_bytes, event.pool_used_bytes,
                            event.pool_release_threshold, event.pool_min_bytes_to_keep);
  }
  std::string text(line);
  text += '}';
  truth_file().write(text);
}

void truth_sync(const SimSyncEvent& event) {
  char line[384];
  std::snprintf(line, sizeof line,
                "{\"type\":\"sync\",\"sync_type\":\"%s\",\"context\":%u,\"stream\":%u,"
                "\"event\":%u,\"corr\":%u,\"start\":%" PRIu64 ",\"end\":%" PRIu64 "}",
                sync_type_name(event.type), event.context_id, event.stream_id, event.event_id,
                event.correlation_id, event.start_ns, event.end_ns);
  truth_file().write(line);
}


}  // namespace simcuda
