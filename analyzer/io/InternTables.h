#pragma once
// The interned definitions of one capture file (strings, frames, stacks,
// modules), accumulated chunk by chunk. Ids are per file: two files' id 7
// are unrelated, so each file gets its own tables.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "proto/prof.pb.h"

namespace prof::analyzer {

class InternTables {
 public:
  // Adds a chunk's definitions. Returns an empty string, or why the chunk's
  // definitions are corrupt (id 0, or a string redefined with another value,
  // which FORMAT.md rules out).
  [[nodiscard]] std::string define(const prof::proto::Chunk& chunk);

  const std::string* findString(uint64_t id) const {
    auto it = strings_.find(id);
    return it == strings_.end() ? nullptr : &it->second;
  }
  bool hasStack(uint64_t id) const { return stacks_.count(id) != 0; }
  bool hasFrame(uint64_t id) const { return frames_.count(id) != 0; }
  bool hasModule(uint64_t id) const { return modules_.count(id) != 0; }

  uint64_t stringCount() const { return strings_.size(); }
  uint64_t frameCount() const { return frames_.size(); }
  uint64_t stackCount() const { return stacks_.size(); }
  uint64_t moduleCount() const { return modules_.size(); }

 private:
  std::unordered_map<uint64_t, std::string> strings_;
  // Only presence for now: the stacks view (a later issue) will keep frames.
  std::unordered_set<uint64_t> frames_;
  std::unordered_set<uint64_t> stacks_;
  std::unordered_set<uint64_t> modules_;
};

}  // namespace prof::analyzer
