#include "io/intern_tables.h"

namespace prof::analyzer {

std::string InternTables::define(const recorded::Chunk& chunk) {
  for (const auto& s : chunk.strings) {
    if (s.id == 0) return "string id 0 is reserved for \"none\"";
    auto [it, inserted] = strings_.emplace(s.id, s.value);
    if (!inserted && it->second != s.value)
      return "string id " + std::to_string(s.id) + " redefined with a different value";
  }
  for (const auto& f : chunk.frames) {
    if (f.id == 0) return "frame id 0 is reserved for \"none\"";
    frames_.emplace(f.id, f);
  }
  for (const auto& s : chunk.stacks) {
    if (s.id == 0) return "stack id 0 is reserved for \"none\"";
    stacks_.emplace(s.id, s);
  }
  for (const auto& m : chunk.modules) {
    if (m.id == 0) return "module id 0 is reserved for \"none\"";
    modules_.emplace(m.id, m);
  }
  // References between definitions: checked after all of this chunk's
  // definitions are in, since a chunk may define a frame and its name in any
  // order.
  for (const auto& f : chunk.frames) {
    if (f.module_id != 0 && !has_module(f.module_id))
      return "frame " + std::to_string(f.id) + " references undefined module id " + std::to_string(f.module_id);
    for (uint64_t id : {f.function_name_id, f.file_name_id})
      if (id != 0 && !find_string(id))
        return "frame " + std::to_string(f.id) + " references undefined string id " + std::to_string(id);
  }
  for (const auto& s : chunk.stacks)
    for (uint64_t id : s.frame_ids)
      if (!has_frame(id))
        return "stack " + std::to_string(s.id) + " references undefined frame id " + std::to_string(id);
  return {};
}

}  // namespace prof::analyzer
