#include "record/stack_table.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>
#include <cstring>

#include "common/proc_self.h"
#include "record/probe_table.h"
#include "record/python_stack.h"
#include "record/string_table.h"

namespace prof {
namespace {

// Whether [vaddr, vaddr + bytes) lies in the file-backed, readable part of
// one PT_LOAD: only then is it safe to read through the mapping (a PT_NOTE
// outside every PT_LOAD exists only in the file).
bool is_mapped(const dl_phdr_info& object, ElfW(Addr) vaddr, ElfW(Xword) bytes) {
  for (ElfW(Half) i = 0; i < object.dlpi_phnum; ++i) {
    const ElfW(Phdr)& load = object.dlpi_phdr[i];
    if (load.p_type != PT_LOAD || (load.p_flags & PF_R) == 0) continue;
    if (vaddr >= load.p_vaddr && bytes <= load.p_filesz && vaddr - load.p_vaddr <= load.p_filesz - bytes) {
      return true;
    }
  }
  return false;
}

// NT_GNU_BUILD_ID from the object's PT_NOTE segments, as raw bytes.
std::string build_id_of(const dl_phdr_info& object) {
  for (ElfW(Half) i = 0; i < object.dlpi_phnum; ++i) {
    const ElfW(Phdr)& note = object.dlpi_phdr[i];
    if (note.p_type != PT_NOTE || !is_mapped(object, note.p_vaddr, note.p_memsz)) continue;
    // Notes are 4-byte aligned, or 8 in a segment aligned to 8 (gABI).
    const size_t align = note.p_align == 8 ? 8 : 4;
    const auto* bytes = reinterpret_cast<const char*>(object.dlpi_addr + note.p_vaddr);
    const size_t size = note.p_memsz;
    size_t offset = 0;
    while (size - offset >= sizeof(ElfW(Nhdr))) {
      ElfW(Nhdr) header;
      std::memcpy(&header, bytes + offset, sizeof(header));
      offset += sizeof(header);
      const size_t name_bytes = (header.n_namesz + align - 1) / align * align;
      const size_t desc_bytes = (header.n_descsz + align - 1) / align * align;
      if (name_bytes > size - offset || desc_bytes > size - offset - name_bytes) break;
      if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
          std::memcmp(bytes + offset, "GNU", 4) == 0) {
        return std::string(bytes + offset + name_bytes, header.n_descsz);
      }
      offset += name_bytes + desc_bytes;
    }
  }
  return {};
}

struct ScanState {
  std::vector<ModuleMap::Entry> found;
  bool first = true;
};

int collect_module(dl_phdr_info* object, size_t, void* data) {
  auto& state = *static_cast<ScanState*>(data);
  const bool first = state.first;
  state.first = false;
  ElfW(Addr) low = ~ElfW(Addr){0};
  ElfW(Addr) high = 0;
  for (ElfW(Half) i = 0; i < object->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = object->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    low = std::min(low, segment.p_vaddr);
    high = std::max(high, segment.p_vaddr + segment.p_memsz);
  }
  if (high <= low) return 0;  // nothing mapped

  ModuleMap::Entry entry;
  const char* name = object->dlpi_name;
  if (name != nullptr && name[0] != '\0') {
    entry.info.path = name;
  } else if (first) {
    entry.info.path = executable_path();  // the loader names it "": not loaded by name
  }
  entry.info.bias = object->dlpi_addr;
  entry.info.load_address = object->dlpi_addr + low;
  entry.info.size = high - low;
  entry.info.build_id = build_id_of(*object);
  entry.end = entry.info.load_address + entry.info.size;
  state.found.push_back(std::move(entry));
  return 0;
}

int read_generation(dl_phdr_info* object, size_t size, void* data) {
  auto& generation = *static_cast<uint64_t*>(data);
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(object->dlpi_subs)) {
    generation = object->dlpi_adds + object->dlpi_subs;
  }
  return 1;  // the counters are the same in every entry: stop at the first
}

}  // namespace

void ModuleMap::scan() {
  ScanState state;
  // The generation first: an object added during the scan then shows up as a
  // change next time instead of being missed.
  scanned_generation_ = loader_generation();
  dl_iterate_phdr(collect_module, &state);
  ++scans_;
  for (Entry& entry : state.found) {
    std::string key = entry.info.path;
    key += '@';
    key += std::to_string(entry.info.load_address);
    auto [slot, added] = ids_.try_emplace(std::move(key), next_id_);
    if (added) ++next_id_;
    entry.info.id = slot->second;
  }
  std::sort(state.found.begin(), state.found.end(), [](const Entry& a, const Entry& b) {
    return a.info.load_address < b.info.load_address;
  });
  entries_ = std::move(state.found);
}

const ModuleMap::Entry* ModuleMap::find(uint64_t address) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), address,
                                [](uint64_t a, const Entry& e) { return a < e.info.load_address; });
  if (after == entries_.begin()) return nullptr;
  const Entry& candidate = *(after - 1);
  return address < candidate.end ? &candidate : nullptr;
}

uint64_t ModuleMap::loader_generation() {
  // A loader without the counters (none known): a fresh value each call, so
  // every unknown address rescans rather than a dlopened module being missed.
  static std::atomic<uint64_t> no_counters{0};
  uint64_t generation = ~uint64_t{0} - no_counters.fetch_add(1, std::memory_order_relaxed);
  dl_iterate_phdr(read_generation, &generation);
  return generation;
}

size_t StackTable::FrameIdsHash::operator()(const std::vector<uint64_t>& ids) const {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint64_t id : ids) {
    hash ^= id;
    hash *= 0x100000001b3ull;
    hash ^= hash >> 29;
  }
  return static_cast<size_t>(hash);
}

namespace {
uint64_t hash_addresses(const uint64_t* addresses, uint32_t depth) {
  uint64_t hash = 0x9E3779B97F4A7C15ull ^ depth;
  for (uint32_t i = 0; i < depth; ++i) {
    hash = (hash ^ addresses[i]) * 0xBF58476D1CE4E5B9ull;
    hash ^= hash >> 31;
  }
  return hash;
}
}  // namespace

uint64_t StackTable::intern(const uint64_t* leaf_first, uint32_t depth, ChunkEncoder& chunk) {
  if (leaf_first == nullptr || depth == 0) return 0;
  const uint64_t hash = hash_addresses(leaf_first, depth);
  const size_t mask = seen_.size() - 1;
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const SeenStack& seen = seen_[slot];
    if (seen.id == 0) break;
    if (seen.hash == hash && seen.depth == depth &&
        memcmp(seen_addresses_.data() + seen.offset, leaf_first, depth * sizeof(uint64_t)) == 0) {
      return seen.id;
    }
  }
  const uint64_t id = intern_by_frames(leaf_first, depth, chunk);
  reserve_one_more(seen_, seen_count_, [](const SeenStack& seen) { return seen.hash; });
  seen_[free_slot(seen_, hash)] = {hash, seen_addresses_.size(), depth, id};
  seen_addresses_.insert(seen_addresses_.end(), leaf_first, leaf_first + depth);
  ++seen_count_;
  return id;
}

uint64_t StackTable::intern_by_frames(const uint64_t* leaf_first, uint32_t depth,
                                      ChunkEncoder& chunk) {
  scratch_.clear();
  for (uint32_t i = 0; i < depth; ++i) scratch_.push_back(intern_frame(leaf_first[i], chunk));
  if (auto found = stack_ids_.find(scratch_); found != stack_ids_.end()) return found->second;
  const uint64_t id = next_stack_id_++;
  stack_ids_.emplace(scratch_, id);
  file::Stack stack;
  stack.id = id;
  stack.frame_ids = scratch_;
  chunk.add(stack);
  return id;
}

uint64_t StackTable::intern_frame(uint64_t address, ChunkEncoder& chunk) {
  if (auto found = frame_ids_.find(address); found != frame_ids_.end()) return found->second;
  if (is_python_frame_key(address)) return intern_python_frame(address, chunk);
  file::Frame frame;
  frame.id = next_frame_id_++;
  frame.kind = file::Frame::Kind::native;
  frame.address = address;
  frame.module_id = module_of(address, chunk);
  frame_ids_.emplace(address, frame.id);
  chunk.add(frame);
  return frame.id;
}

uint64_t StackTable::intern_python_frame(uint64_t key, ChunkEncoder& chunk) {
  const uint32_t code_id = python_key_code_id(key);
  if (code_id > python_codes_.size()) {
    std::vector<PythonCode> fresh = python_codes_from(python_codes_.size());
    python_codes_.insert(python_codes_.end(), fresh.begin(), fresh.end());
  }
  file::Frame frame;
  frame.id = next_frame_id_++;
  frame.kind = file::Frame::Kind::python;
  const int32_t line = python_key_line(key);
  frame.line = line < 0 ? 0 : static_cast<uint32_t>(line);
  if (strings_ != nullptr) {
    const bool known = code_id >= 1 && code_id <= python_codes_.size();
    frame.file_name_id = strings_->intern(known ? python_codes_[code_id - 1].file : "?", chunk);
    frame.function_name_id = strings_->intern(known ? python_codes_[code_id - 1].name : "?", chunk);
  }
  frame_ids_.emplace(key, frame.id);
  chunk.add(frame);
  return frame.id;
}

uint64_t StackTable::module_of(uint64_t address, ChunkEncoder& chunk) {
  const ModuleMap::Entry* entry = modules_.find(address);
  if (entry == nullptr &&
      (modules_.scans() == 0 || ModuleMap::loader_generation() != modules_.scanned_generation())) {
    modules_.scan();
    entry = modules_.find(address);
  }
  if (entry == nullptr) return 0;
  const uint64_t id = entry->info.id;
  if (module_defined_.size() <= id) module_defined_.resize(id + 1, false);
  if (!module_defined_[id]) {
    module_defined_[id] = true;
    chunk.add(entry->info);
  }
  return id;
}

}  // namespace prof
