#pragma once
// Helpers of the stack tests: parse a chunk with libprotobuf's generated
// classes, index its definitions, and symbolize a stack as the analyzer would.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "../framed_chunk.h"
#include "proto/prof.pb.h"
#include "symbols/elf_symbolizer.h"

namespace stacks_test {

using ::parse_framed;  // ../framed_chunk.h

// The definitions of every chunk read so far, by id.
struct Definitions {
  std::map<uint64_t, prof::proto::Frame> frames;
  std::map<uint64_t, prof::proto::Stack> stacks;
  std::map<uint64_t, prof::proto::Module> modules;

  void add(const prof::proto::Chunk& chunk) {
    for (const auto& frame : chunk.frames()) REQUIRE(frames.emplace(frame.id(), frame).second);
    for (const auto& stack : chunk.stacks()) REQUIRE(stacks.emplace(stack.id(), stack).second);
    for (const auto& module : chunk.modules()) REQUIRE(modules.emplace(module.id(), module).second);
  }
};

struct SymbolizedFrame {
  std::string module;  // path, "" when in no module
  std::string function;  // "" when unknown
};

// Leaf first, as the analyzer would do it: address - bias - 1 (a return
// address) in the module's file, build id checked.
inline std::vector<SymbolizedFrame> symbolize(const Definitions& defs, uint64_t stack_id,
                                              prof::analyzer::ElfSymbolizer& symbolizer) {
  std::vector<SymbolizedFrame> out;
  const auto stack = defs.stacks.find(stack_id);
  REQUIRE(stack != defs.stacks.end());
  for (uint64_t frame_id : stack->second.frame_ids()) {
    const auto frame = defs.frames.find(frame_id);
    REQUIRE(frame != defs.frames.end());
    REQUIRE(frame->second.kind() == prof::proto::Frame::NATIVE);
    SymbolizedFrame symbolized;
    if (frame->second.module_id() != 0) {
      const auto module = defs.modules.find(frame->second.module_id());
      REQUIRE(module != defs.modules.end());
      symbolized.module = module->second.path();
      const uint64_t vaddr = prof::analyzer::file_address_of_call(frame->second.address(), module->second.bias());
      if (auto symbol = symbolizer.lookup(module->second.path(), module->second.build_id(), vaddr)) {
        symbolized.function = symbol->name;
      }
    }
    out.push_back(symbolized);
  }
  return out;
}

}  // namespace stacks_test
