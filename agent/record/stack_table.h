#pragma once
// Interning of native frames, call stacks and the modules they lie in
// (FORMAT.md, "Interning"), on the writer thread. Each Frame, Stack and Module
// is defined in the chunk being encoded the first time it is used.
//
// Frames are keyed by address, stacks by their sequence of frame ids, modules
// by (path, load address). Frame.address is the runtime address as captured;
// the analyzer maps it into the module's file with `address - bias` (and
// should look up `address - 1`: captured addresses are return addresses).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "stacks/python_frames.h"
#include "encode/chunk_encoder.h"

namespace prof {

// The process's loaded ELF objects, from dl_iterate_phdr. Ids are stable
// across rescans: an object still loaded at the same place keeps its id.
class ModuleMap {
 public:
  struct Entry {
    file::Module info;  // info.id > 0
    uint64_t end = 0;  // info.load_address + info.size
  };

  // Re-reads the loader's list of objects. Allocates; takes the loader lock.
  void scan();

  // The module whose PT_LOAD span holds `address`, or nullptr.
  const Entry* find(uint64_t address) const;

  // The loader's count of objects added and removed (dlpi_adds + dlpi_subs):
  // a rescan can only find something new when this changed since the last.
  static uint64_t loader_generation();
  uint64_t scanned_generation() const { return scanned_generation_; }

  uint64_t scans() const { return scans_; }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;  // loaded now, sorted by load address
  // Every module ever seen, for stable ids: (path, load address) -> id.
  std::unordered_map<std::string, uint64_t> ids_;
  uint64_t next_id_ = 1;  // 0 means "no module"
  uint64_t scanned_generation_ = 0;
  uint64_t scans_ = 0;
};

class StringTable;

class StackTable {
 public:
  // Where Python frames' file and function names are interned; without it
  // they are named "?".
  void use_strings(StringTable* strings) { strings_ = strings; }

  // The id of the stack `leaf_first[0..depth)` (return addresses, leaf first);
  // 0 for an empty stack. Frames, the stack and their modules are defined in
  // `chunk` when new.
  uint64_t intern(const uint64_t* leaf_first, uint32_t depth, ChunkEncoder& chunk);

  size_t frame_count() const { return frame_ids_.size(); }
  size_t stack_count() const { return stack_ids_.size(); }
  const ModuleMap& modules() const { return modules_; }

 private:
  struct FrameIdsHash {
    size_t operator()(const std::vector<uint64_t>& ids) const;
  };

  // The first time a sequence of addresses is seen: frame by frame.
  uint64_t intern_by_frames(const uint64_t* leaf_first, uint32_t depth, ChunkEncoder& chunk);
  uint64_t intern_frame(uint64_t address, ChunkEncoder& chunk);
  // A Python frame key (python_stack.h): kind PYTHON, named by its code.
  uint64_t intern_python_frame(uint64_t key, ChunkEncoder& chunk);
  // The id of the module holding `address` (defining it when first used), 0
  // when none does even after a rescan. Rescans only when the loader's list
  // changed (a dlopen since the last scan): a JIT frame in no module costs a
  // dl_iterate_phdr call the first time its address is seen, not a rescan.
  uint64_t module_of(uint64_t address, ChunkEncoder& chunk);

  ModuleMap modules_;
  StringTable* strings_ = nullptr;
  std::vector<PythonCode> python_codes_;  // by code id - 1, copied as first used
  std::vector<bool> module_defined_;  // by module id
  std::unordered_map<uint64_t, uint64_t> frame_ids_;  // address -> id
  std::unordered_map<std::vector<uint64_t>, uint64_t, FrameIdsHash> stack_ids_;
  std::vector<uint64_t> scratch_;  // the frame ids of the stack being interned
  // Stacks by their return addresses, in a flat open-addressing table: a
  // stack seen before (most are: a training loop launches from a few call
  // sites) costs one hash and one compare, not a frame lookup per frame
  // (706 instructions per stack with the frame lookups, callgrind).
  // Exact: an address always has one frame id, a frame id sequence one
  // stack id.
  struct SeenStack {
    uint64_t hash;
    size_t offset;  // into seen_addresses_
    uint32_t depth;
    uint64_t id;  // 0: empty slot
  };
  std::vector<SeenStack> seen_ = std::vector<SeenStack>(256);  // a power of two
  size_t seen_count_ = 0;
  std::vector<uint64_t> seen_addresses_;
  uint64_t next_frame_id_ = 1;
  uint64_t next_stack_id_ = 1;
};

}  // namespace prof
