#pragma once
// Function names for native frames, read from the modules' ELF files: the
// section headers, .symtab and .dynsym with their string tables, nothing
// else (no libbfd, no libdw). File:line would need DWARF and is not done here.
//
// Every read of a file is bounds-checked against its size: a missing,
// truncated or corrupt file yields no symbol, never a crash. A module whose
// build id differs from the one recorded at capture time (the file was
// replaced since) yields no symbol either: unknown beats a wrong name.
//
// Not thread-safe: one instance per thread, or a lock around it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace prof::analyzer {

struct Symbol {
  std::string name;     // demangled when it is a C++ name, else as in the table
  std::string raw_name;  // as in the symbol table (mangled)
  uint64_t start = 0;   // file virtual address of the function
  uint64_t size = 0;    // 0: the table gave none (the function then ends at the next one)
  uint64_t offset = 0;  // of the looked-up address from start
};

enum class ModuleStatus {
  ok,               // symbols read (the module may still have none)
  unreadable,       // missing, not a regular file, or a read error
  not_elf,           // no ELF magic, or a header that does not fit the file
  unsupported,      // ELF32, big-endian, or a relocatable object
  build_id_mismatch,  // the file is not the one the capture saw
};

const char* describe(ModuleStatus status);

// Where a captured native frame lies in its module's file. The addresses
// libprof captures are all return addresses (the instruction after a call),
// so the call itself is at address - 1; a PC taken from a signal context
// (sampling) would be exact for the leaf.
inline uint64_t file_address_of_call(uint64_t address, uint64_t bias) { return address - bias - 1; }

class ElfSymbolizer {
 public:
  ElfSymbolizer();
  ~ElfSymbolizer();
  ElfSymbolizer(const ElfSymbolizer&) = delete;
  ElfSymbolizer& operator=(const ElfSymbolizer&) = delete;

  // The function containing `file_vaddr` in the ELF file `module_path`.
  // `expected_build_id` is the raw NT_GNU_BUILD_ID bytes from the capture
  // (Module.build_id); empty: not checked. Files are read once and cached.
  std::optional<Symbol> lookup(const std::string& module_path, const std::string& expected_build_id,
                               uint64_t file_vaddr);

  // Why lookups in `module_path` fail (or ok), loading it if needed.
  ModuleStatus status(const std::string& module_path, const std::string& expected_build_id);

  // Where separate debug files are looked up by build id
  // (<dir>/.build-id/xx/rest.debug) for a module without .symtab.
  // Default /usr/lib/debug; empty: don't look.
  void set_debug_directory(std::string directory) { debug_directory_ = std::move(directory); }

  struct Module;  // a file's function symbols, sorted (elf_symbolizer.cpp)

 private:
  const Module& module(const std::string& path);

  std::unordered_map<std::string, std::unique_ptr<Module>> cache_;
  std::string debug_directory_ = "/usr/lib/debug";
};

// Hex of raw build-id bytes (for messages and debug-file paths).
std::string build_id_hex(const std::string& build_id);

}  // namespace prof::analyzer
