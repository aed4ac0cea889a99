// Modules and kernel launches.
#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <regex>
#include <unordered_set>

#include "api_trace.h"
#include "model_internal.h"
#include "sim_clock.h"
#include "sim_config.h"

namespace simcuda {
namespace {

// A PTX module image (or simcuda's own listing, which uses the same syntax):
// every ".entry <name>" declares a function.
std::vector<std::string> entry_names(const char* image) {
  std::vector<std::string> names;
  const char* p = image;
  while ((p = std::strstr(p, ".entry")) != nullptr) {
    p += 6;
    if (*p != ' ' && *p != '\t') continue;
    while (*p == ' ' || *p == '\t') ++p;
    const char* end = p;
    while (*end && *end != '(' && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') ++end;
    if (end > p) names.emplace_back(p, end);
    p = end;
  }
  return names;
}

// Every ".global ... name[size]" of a module image: its __device__ and __constant__
// variables (size in bytes; a declaration without one is a single byte).
std::vector<std::pair<std::string, size_t>> global_names(const char* image) {
  std::vector<std::pair<std::string, size_t>> globals;
  const char* p = image;
  while ((p = std::strstr(p, ".global")) != nullptr) {
    p += 7;
    if (*p != ' ' && *p != '\t') continue;
    for (;;) {  // skip the qualifiers (.align 4, .b8, .u32 ...) up to the name
      while (*p == ' ' || *p == '\t') ++p;
      if (*p == '.') {
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') ++p;
      } else if (*p >= '0' && *p <= '9') {
        while (*p >= '0' && *p <= '9') ++p;
      } else {
        break;
      }
    }
    const char* end = p;
    while (*end && *end != '[' && *end != ';' && *end != ' ' && *end != '\n') ++end;
    if (end == p) continue;
    size_t size = *end == '[' ? std::strtoull(end + 1, nullptr, 10) : 1;
    globals.emplace_back(std::string(p, end), size ? size : 1);
    p = end;
  }
  return globals;
}

// Blocks of `block_threads` threads one SM holds at once (simcuda's kernels use
// 32 registers a thread): the bound of a cooperative grid, as the occupancy API.
int resident_blocks_per_sm(uint64_t block_threads, unsigned dynamic_shared) {
  int by_threads = static_cast<int>(2048 / block_threads);
  int by_registers = static_cast<int>(65536 / (32 * block_threads));
  int by_shared = dynamic_shared ? static_cast<int>(228 * 1024 / dynamic_shared) : 32;
  return std::max(0, std::min({32, by_threads, by_registers, by_shared}));
}

// A cooperative grid must be resident all at once; a cluster must divide the
// grid and hold at most 8 blocks (16 with the function's non-portable opt-in).
CUresult check_launch_shape_locked(const LaunchRequest& request, PlannedOperation& plan) {
  const unsigned* grid = request.grid;
  uint64_t blocks = uint64_t{grid[0]} * grid[1] * grid[2];
  uint64_t block_threads = uint64_t{request.block[0]} * request.block[1] * request.block[2];
  if (request.cooperative) {
    int multiprocessors = model().devices[static_cast<size_t>(plan.function->module->context->device)].info.multiprocessors;
    uint64_t resident = uint64_t(resident_blocks_per_sm(block_threads, request.dynamic_shared_bytes)) * multiprocessors;
    if (blocks > resident) return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    plan.op.launch_type = 1;  // CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE
  }
  const unsigned* cluster = request.cluster;
  if (cluster[0] == 0 && cluster[1] == 0 && cluster[2] == 0) return CUDA_SUCCESS;
  uint64_t cluster_blocks = 1;
  for (int i = 0; i < 3; ++i) {
    unsigned size = cluster[i] ? cluster[i] : 1;
    if (grid[i] % size != 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    cluster_blocks *= size;
    plan.op.cluster[i] = size;
  }
  if (cluster_blocks > (plan.function->non_portable_cluster_allowed ? 16u : 8u)) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  return CUDA_SUCCESS;
}

// What a module image declares: its kernels and its __device__/__constant__
// variables (name, bytes).
struct ImageSymbols {
  std::vector<std::string> entries;
  std::vector<std::pair<std::string, size_t>> globals;
};

// A cubin (what `nvcc -cubin` makes) is an ELF file: kernels are global FUNC
// symbols marked as CUDA entries (st_other 0x10), variables are OBJECT symbols
// of its .nv.global and .nv.constant sections.
bool elf_symbols(const unsigned char* image, size_t size, ImageSymbols* out) {
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(image, ELFMAG, SELFMAG) != 0 || image[EI_CLASS] != ELFCLASS64) {
    return false;
  }
  Elf64_Ehdr header;
  std::memcpy(&header, image, sizeof header);
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shoff + uint64_t{header.e_shnum} * sizeof(Elf64_Shdr) > size ||
      header.e_shstrndx >= header.e_shnum) {
    return false;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  std::memcpy(sections.data(), image + header.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  auto within = [&](const Elf64_Shdr& s) { return s.sh_offset + s.sh_size <= size; };
  auto text = [&](const Elf64_Shdr& table, uint32_t offset) -> std::string {
    if (!within(table) || offset >= table.sh_size) return {};
    const char* start = reinterpret_cast<const char*>(image + table.sh_offset + offset);
    return std::string(start, strnlen(start, table.sh_size - offset));
  };
  const Elf64_Shdr& section_names = sections[header.e_shstrndx];
  for (const Elf64_Shdr& table : sections) {
    if (table.sh_type != SHT_SYMTAB || !within(table) || table.sh_link >= sections.size()) continue;
    const Elf64_Shdr& names = sections[table.sh_link];
    for (size_t i = 0; i + 1 <= table.sh_size / sizeof(Elf64_Sym); ++i) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, image + table.sh_offset + i * sizeof(Elf64_Sym), sizeof symbol);
      std::string name = text(names, symbol.st_name);
      if (name.empty() || symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= sections.size()) continue;
      if (ELF64_ST_TYPE(symbol.st_info) == STT_FUNC && ELF64_ST_BIND(symbol.st_info) == STB_GLOBAL &&
          (symbol.st_other & 0x10) != 0) {
        out->entries.push_back(name);
      } else if (ELF64_ST_TYPE(symbol.st_info) == STT_OBJECT && symbol.st_size > 0) {
        std::string section = text(section_names, sections[symbol.st_shndx].sh_name);
        if (section.rfind(".nv.global", 0) == 0 || section.rfind(".nv.constant", 0) == 0) {
          out->globals.emplace_back(name, symbol.st_size);
        }
      }
    }
  }
  return !out->entries.empty() || !out->globals.empty();
}

bool ptx_symbols(const char* text, ImageSymbols* out) {
  out->entries = entry_names(text);
  out->globals = global_names(text);
  return !out->entries.empty() || !out->globals.empty();
}

// A fatbin (`nvcc -fatbin`, or what nvcc embeds in a program): a header
// (magic 0xBA55ED50, version, header size, size of the entries) and entries,
// each a header (kind, version, its own size, payload size...) and a payload:
// a cubin or PTX text. Compressed payloads are skipped (not modelled).
constexpr uint32_t kFatbinMagic = 0xBA55ED50;

bool fatbin_symbols(const unsigned char* image, ImageSymbols* out) {
  uint32_t magic = 0;
  uint16_t header_size = 0;
  uint64_t entries_size = 0;
  std::memcpy(&magic, image, 4);
  if (magic != kFatbinMagic) return false;
  std::memcpy(&header_size, image + 6, 2);
  std::memcpy(&entries_size, image + 8, 8);
  const unsigned char* entry = image + header_size;
  const unsigned char* end = entry + entries_size;
  while (entry + 16 <= end) {
    uint16_t kind = 0;
    uint32_t entry_header = 0;
    uint64_t payload_size = 0;
    std::memcpy(&kind, entry, 2);
    std::memcpy(&entry_header, entry + 4, 4);
    std::memcpy(&payload_size, entry + 8, 8);
    if (entry_header < 16 || entry + entry_header + payload_size > end) break;
    const unsigned char* payload = entry + entry_header;
    ImageSymbols found;
    if (kind == 2 && elf_symbols(payload, payload_size, &found)) {
      *out = std::move(found);
      return true;  // one cubin describes the module
    }
    if (kind == 1 && out->entries.empty()) {
      std::string text(reinterpret_cast<const char*>(payload), strnlen(reinterpret_cast<const char*>(payload), payload_size));
      if (ptx_symbols(text.c_str(), &found)) *out = std::move(found);  // kept unless a cubin follows
    }
    entry += entry_header + payload_size;
  }
  return !out->entries.empty() || !out->globals.empty();
}

// The fatbin wrapper nvcc's host code passes (__fatBinC_Wrapper_t: magic
// 0x466243b1, version, the fatbin's address) leads to the fatbin.
const unsigned char* unwrap_fatbin(const unsigned char* image) {
  uint32_t magic = 0;
  std::memcpy(&magic, image, 4);
  if (magic != 0x466243b1) return image;
  const unsigned char* inner = nullptr;
  std::memcpy(&inner, image + 8, sizeof inner);
  return inner != nullptr ? inner : image;
}

bool image_symbols(const void* image, ImageSymbols* out) {
  const auto* bytes = unwrap_fatbin(static_cast<const unsigned char*>(image));
  // A cubin's length is in its header: enough of it is read to find the section table.
  if (std::memcmp(bytes, ELFMAG, SELFMAG) == 0) {
    Elf64_Ehdr header;
    std::memcpy(&header, bytes, sizeof header);
    size_t size = header.e_shoff + uint64_t{header.e_shnum} * header.e_shentsize;
    return elf_symbols(bytes, size, out);
  }
  if (fatbin_symbols(bytes, out)) return true;
  return ptx_symbols(reinterpret_cast<const char*>(bytes), out);
}

bool faults(const std::string& name) {
  const std::string& pattern = config().fault_kernel_pattern;
  return !pattern.empty() && std::regex_search(name, std::regex(pattern));
}

}  // namespace

CUresult module_load(CUmodule* out, const void* image) {
  if (out == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  ImageSymbols symbols;
  if (!image_symbols(image, &symbols)) return CUDA_ERROR_INVALID_IMAGE;
  const std::vector<std::string>& names = symbols.entries;
  const auto& globals = symbols.globals;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  auto module = std::make_unique<CUmod_st>();
  module->context = context;
  for (const std::string& name : names) {
    // Durations are looked up once here: a regex per launch would dominate the
    // launch-bound benchmark.
    auto function = std::make_unique<CUfunc_st>(
        CUfunc_st{name, config().kernel_duration_ns(name), faults(name), module.get()});
    function->kernel.function = function.get();  // not the temporary's address
    m.functions.insert(function.get());
    m.kernels.insert(&function->kernel);
    module->functions.push_back(std::move(function));
  }
  for (const auto& [name, size] : globals) {
    // Variables start zeroed (simcuda cannot read their initialisers from a cubin).
    size_t rounded = (size + 255) / 256 * 256;
    void* memory = std::aligned_alloc(256, rounded);
    if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    std::memset(memory, 0, rounded);
    module->globals[name] = {memory, size};
    m.allocations[reinterpret_cast<uintptr_t>(memory)] = {size, MemoryKind::Device, context->device, context->id,
                                                          false};
  }
  *out = module.get();
  m.modules.insert(module.get());
  m.all_modules.push_back(std::move(module));
  return CUDA_SUCCESS;
}

}  // namespace simcuda

struct CUlinkState_st {
  std::string ptx;             // PTX inputs, joined
  std::vector<uint8_t> binary;  // a cubin or fatbin input
  std::vector<uint8_t> output;  // what cuLinkComplete gave, until cuLinkDestroy
};

namespace simcuda {
namespace {

std::mutex g_link_mutex;
auto* g_links = new std::unordered_set<CUlinkState_st*>;  // live states; never destroyed (exit)

}  // namespace

CUresult link_create(CUlinkState* out) {
  std::lock_guard<std::mutex> lock(g_link_mutex);
  *out = new CUlinkState_st;
  g_links->insert(*out);
  return CUDA_SUCCESS;
}

CUresult link_add(CUlinkState state, CUjitInputType type, const void* data, size_t size) {
  if (data == nullptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(g_link_mutex);
  if (!g_links->count(state)) return CUDA_ERROR_INVALID_HANDLE;
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (type == CU_JIT_INPUT_PTX) {
    std::string text(reinterpret_cast<const char*>(bytes), strnlen(reinterpret_cast<const char*>(bytes), size));
    if (text.find(".version") == std::string::npos) return CUDA_ERROR_INVALID_PTX;
    state->ptx += text + "\n";
    return CUDA_SUCCESS;
  }
  if (type == CU_JIT_INPUT_CUBIN || type == CU_JIT_INPUT_FATBINARY) {
    ImageSymbols symbols;
    if (!state->binary.empty() || !image_symbols(data, &symbols)) return CUDA_ERROR_INVALID_IMAGE;
    state->binary.assign(bytes, bytes + size);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_NOT_SUPPORTED;  // objects and libraries (-rdc device linking) are not modelled
}

CUresult link_complete(CUlinkState state, void** image, size_t* size) {
  if (image == nullptr || size == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(g_link_mutex);
  if (!g_links->count(state)) return CUDA_ERROR_INVALID_HANDLE;
  if (!state->binary.empty() && !state->ptx.empty()) return CUDA_ERROR_NOT_SUPPORTED;
  if (state->binary.empty() && state->ptx.empty()) return CUDA_ERROR_INVALID_VALUE;
  if (!state->binary.empty()) {
    state->output = state->binary;
  } else {
    state->output.assign(state->ptx.begin(), state->ptx.end());
    state->output.push_back(0);
  }
  *image = state->output.data();
  *size = state->output.size();
  return CUDA_SUCCESS;
}

CUresult link_destroy(CUlinkState state) {
  std::lock_guard<std::mutex> lock(g_link_mutex);
  if (!g_links->erase(state)) return CUDA_ERROR_INVALID_HANDLE;
  delete state;
  return CUDA_SUCCESS;
}

CUresult module_unload(CUmodule module) {
  Model& m = model();
  Lock lock(m.mutex);
  if (module == nullptr || !m.modules.count(module)) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& function : module->functions) {
    m.functions.erase(function.get());
    m.kernels.erase(&function->kernel);
  }
  m.modules.erase(module);
  return CUDA_SUCCESS;
}

CUresult module_global(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (module == nullptr || !m.modules.count(module)) return CUDA_ERROR_INVALID_HANDLE;
  auto found = module->globals.find(name);
  if (found == module->globals.end()) return CUDA_ERROR_NOT_FOUND;
  if (address) *address = reinterpret_cast<CUdeviceptr>(found->second.first);
  if (bytes) *bytes = found->second.second;
  return CUDA_SUCCESS;
}

CUresult module_function(CUfunction* out, CUmodule module, const char* name) {
  if (out == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (module == nullptr || !m.modules.count(module)) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& function : module->functions) {
    if (function->name == name) {
      *out = function.get();
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

const char* function_name(CUfunction function) {
  Model& m = model();
  Lock lock(m.mutex);
  // The name's storage lives as long as the (never freed) module object.
  return function != nullptr && m.functions.count(function) ? function->name.c_str() : nullptr;
}

CUkernel function_kernel(CUfunction function) { return function != nullptr ? &function->kernel : nullptr; }

const char* kernel_name(CUkernel kernel) {
  Model& m = model();
  Lock lock(m.mutex);
  return kernel != nullptr && m.kernels.count(kernel) ? kernel->function->name.c_str() : nullptr;
}

const char* launched_name(CUfunction handle) {
  const char* name = function_name(handle);
  return name != nullptr ? name : kernel_name(reinterpret_cast<CUkernel>(handle));
}

CUresult plan_kernel_locked(CUfunction handle, const unsigned grid[3], const unsigned block[3],
                            unsigned dynamic_shared_bytes, PlannedOperation* plan) {
  // A launch takes a CUfunction or a CUkernel passed as one.
  const Model& m = model();
  auto* as_kernel = reinterpret_cast<CUkern_st*>(handle);
  CUfunction function = m.functions.count(handle) ? handle : m.kernels.count(as_kernel) ? as_kernel->function : nullptr;
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  for (int i = 0; i < 3; ++i) {
    if (grid[i] == 0 || block[i] == 0) return CUDA_ERROR_INVALID_VALUE;
  }
  uint64_t threads = uint64_t{block[0]} * block[1] * block[2];
  if (threads > 1024 || block[2] > 64 || grid[1] > 65535 || grid[2] > 65535) return CUDA_ERROR_INVALID_VALUE;
  // More than 48 KiB needs the function's opt-in (cuFuncSetAttribute).
  if (dynamic_shared_bytes > static_cast<unsigned>(function->max_dynamic_shared_bytes)) return CUDA_ERROR_INVALID_VALUE;
  SimOperation& op = plan->op;
  op = {};
  op.kind = SIM_OP_KERNEL;
  op.name = function->name.c_str();
  for (int i = 0; i < 3; ++i) {
    op.grid[i] = static_cast<int32_t>(grid[i]);
    op.block[i] = static_cast<int32_t>(block[i]);
  }
  op.dynamic_shared_memory = static_cast<int32_t>(dynamic_shared_bytes);
  op.is_async = 1;
  plan->function = function;
  plan->duration_ns = function->duration_ns;
  plan->faults = function->faults;
  return CUDA_SUCCESS;
}

CUresult enqueue_kernel(const LaunchRequest& request) {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  PlannedOperation plan;
  if (CUresult bad = plan_kernel_locked(request.function, request.grid, request.block, request.dynamic_shared_bytes,
                                        &plan)) {
    return bad;
  }
  if (CUresult bad = check_launch_shape_locked(request, plan)) return bad;
  CUresult error;
  CUstream_st* stream = work_stream_locked(request.stream, request.per_thread, &error);
  if (stream == nullptr) return error;
  if (stream->context != plan.function->module->context) return CUDA_ERROR_INVALID_HANDLE;
  if (!schedule_locked(lock, stream, plan.op, plan.duration_ns, plan.faults, nullptr)) return CUDA_SUCCESS;
  lock.unlock();
  report_operation(plan.op);
  return CUDA_SUCCESS;
}

}  // namespace simcuda
