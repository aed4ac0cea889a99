#pragma once
// The interned definitions of one capture file (strings, frames, stacks,
// modules), accumulated chunk by chunk. Ids are per file: two files' id 7
// are unrelated, so each file gets its own tables.
#include <cstdint>
#include <string>
#include <unordered_map>

#include "io/records.h"

namespace prof::analyzer {

class InternTables {
 public:
  // Adds a chunk's definitions. Returns an empty string, or why the chunk's
  // definitions are corrupt (id 0, or a string redefined with another value,
  // which FORMAT.md rules out).
  [[nodiscard]] std::string define(const recorded::Chunk& chunk);

  const std::string* find_string(uint64_t id) const {
    auto it = strings_.find(id);
    return it == strings_.end() ? nullptr : &it->second;
  }
  bool has_stack(uint64_t id) const { return stacks_.count(id) != 0; }
  bool has_frame(uint64_t id) const { return frames_.count(id) != 0; }
  bool has_module(uint64_t id) const { return modules_.count(id) != 0; }
  const recorded::Stack* find_stack(uint64_t id) const { return find(stacks_, id); }
  const recorded::Frame* find_frame(uint64_t id) const { return find(frames_, id); }
  const recorded::Module* find_module(uint64_t id) const { return find(modules_, id); }

  uint64_t string_count() const { return strings_.size(); }
  uint64_t frame_count() const { return frames_.size(); }
  uint64_t stack_count() const { return stacks_.size(); }
  uint64_t module_count() const { return modules_.size(); }

 private:
  template <class T>
  static const T* find(const std::unordered_map<uint64_t, T>& map, uint64_t id) {
    auto it = map.find(id);
    return it == map.end() ? nullptr : &it->second;
  }

  std::unordered_map<uint64_t, std::string> strings_;
  std::unordered_map<uint64_t, recorded::Frame> frames_;
  std::unordered_map<uint64_t, recorded::Stack> stacks_;
  std::unordered_map<uint64_t, recorded::Module> modules_;
};

}  // namespace prof::analyzer
