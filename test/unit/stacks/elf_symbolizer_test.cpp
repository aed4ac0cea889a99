// ElfSymbolizer on good, mismatched, missing, truncated and corrupted files.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "stack_test_chain.h"
#include "symbols/elf_symbolizer.h"

using prof::analyzer::ElfSymbolizer;
using prof::analyzer::ModuleStatus;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

// A fresh directory under $TMPDIR for one test case's files, removed after.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/prof-symbols-XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~ScratchDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

// The file virtual address of the test library's exported function: its
// runtime address minus the library's load bias.
uint64_t library_function_vaddr() {
  void* library = dlopen(STACKS_TEST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  REQUIRE(library != nullptr);
  void* function = dlsym(library, "stacks_test_library_call");
  REQUIRE(function != nullptr);
  Dl_info info{};
  link_map* map = nullptr;
  REQUIRE(dladdr1(function, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0);
  const uint64_t vaddr = reinterpret_cast<uintptr_t>(function) - map->l_addr;
  dlclose(library);
  return vaddr;
}

}  // namespace

TEST_CASE("a function is found by any address inside it, from .dynsym and .symtab") {
  const uint64_t vaddr = library_function_vaddr();
  ElfSymbolizer symbolizer;
  REQUIRE(symbolizer.status(STACKS_TEST_LIBRARY, "") == ModuleStatus::ok);
  auto at_start = symbolizer.lookup(STACKS_TEST_LIBRARY, "", vaddr);
  REQUIRE(at_start);
  CHECK(at_start->name == "stacks_test_library_call");
  CHECK(at_start->start == vaddr);
  CHECK(at_start->offset == 0);
  REQUIRE(at_start->size > 1);
  auto at_end = symbolizer.lookup(STACKS_TEST_LIBRARY, "", vaddr + at_start->size - 1);
  REQUIRE(at_end);
  CHECK(at_end->name == "stacks_test_library_call");
  CHECK(at_end->offset == at_start->size - 1);
  CHECK_FALSE(symbolizer.lookup(STACKS_TEST_LIBRARY, "", 0));
  CHECK_FALSE(symbolizer.lookup(STACKS_TEST_LIBRARY, "", ~uint64_t{0}));
}

TEST_CASE("C++ names are demangled, the table's name is kept") {
  ElfSymbolizer symbolizer;
  // A function of this executable, found through its own file.
  Dl_info info{};
  link_map* map = nullptr;
  auto* function = reinterpret_cast<void*>(&read_file);
  REQUIRE(dladdr1(function, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0);
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  REQUIRE(length > 0);
  const std::string exe(self, static_cast<size_t>(length));
  auto symbol = symbolizer.lookup(exe, "", reinterpret_cast<uintptr_t>(function) - map->l_addr + 1);
  REQUIRE(symbol);
  CHECK(symbol->name == "(anonymous namespace)::read_file(std::__cxx11::basic_string<char, "
                        "std::char_traits<char>, std::allocator<char> > const&)");
  CHECK(symbol->raw_name.rfind("_Z", 0) == 0);
  CHECK(symbol->offset == 1);
}

TEST_CASE("a build id that differs from the captured one gives no symbol") {
  const uint64_t vaddr = library_function_vaddr();
  ElfSymbolizer symbolizer;
  const std::string wrong(20, '\x5a');
  CHECK(symbolizer.status(STACKS_TEST_LIBRARY, wrong) == ModuleStatus::build_id_mismatch);
  CHECK_FALSE(symbolizer.lookup(STACKS_TEST_LIBRARY, wrong, vaddr));
  // No build id recorded: nothing to check against, the file is trusted.
  CHECK(symbolizer.lookup(STACKS_TEST_LIBRARY, "", vaddr));
}

TEST_CASE("missing files, directories, FIFOs and non-ELF files give no symbol") {
  ScratchDir dir;
  ElfSymbolizer symbolizer;
  CHECK(symbolizer.status(dir.path + "/missing.so", "") == ModuleStatus::unreadable);
  CHECK_FALSE(symbolizer.lookup(dir.path + "/missing.so", "", 0x1000));
  CHECK(symbolizer.status(dir.path, "") == ModuleStatus::unreadable);
  CHECK(symbolizer.status("linux-vdso.so.1", "") == ModuleStatus::unreadable);
  const std::string fifo = dir.path + "/fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(symbolizer.status(fifo, "") == ModuleStatus::unreadable);  // and does not hang
  write_file(dir.path + "/text.so", "not an ELF file at all\n");
  CHECK(symbolizer.status(dir.path + "/text.so", "") == ModuleStatus::not_elf);
  write_file(dir.path + "/empty.so", "");
  CHECK(symbolizer.status(dir.path + "/empty.so", "") == ModuleStatus::not_elf);
  std::string elf32 = read_file(STACKS_TEST_LIBRARY);
  elf32[EI_CLASS] = ELFCLASS32;
  write_file(dir.path + "/elf32.so", elf32);
  CHECK(symbolizer.status(dir.path + "/elf32.so", "") == ModuleStatus::unsupported);
}

TEST_CASE("truncated and corrupted ELF files never crash the symbolizer") {
  const std::string good = read_file(STACKS_TEST_LIBRARY);
  REQUIRE(good.size() > sizeof(Elf64_Ehdr));
  const uint64_t vaddr = library_function_vaddr();
  ScratchDir dir;

  SECTION("every truncation: symbols only while the tables are whole") {
    int found = 0;
    for (size_t size = 0; size < good.size(); size += good.size() < 40000 ? 61 : good.size() / 600) {
      const std::string path = dir.path + "/cut" + std::to_string(size) + ".so";
      write_file(path, good.substr(0, size));
      ElfSymbolizer symbolizer;
      if (auto symbol = symbolizer.lookup(path, "", vaddr)) {
        CHECK(symbol->name == "stacks_test_library_call");  // from a table that fit
        ++found;
      }
    }
    // The section headers sit at the end of the file: cut, nothing is found.
    CHECK(found == 0);
  }

  SECTION("random bytes overwritten in the headers and tables") {
    std::mt19937_64 random(20240611);  // fixed: a failure must reproduce
    const auto* ehdr = reinterpret_cast<const Elf64_Ehdr*>(good.data());
    const uint64_t section_headers = ehdr->e_shoff;
    for (int round = 0; round < 300; ++round) {
      std::string bad = good;
      const int edits = 1 + static_cast<int>(random() % 16);
      for (int e = 0; e < edits; ++e) {
        // Half of the edits hit the ELF or section headers, where offsets,
        // sizes and links live; the rest anywhere.
        size_t at;
        switch (random() % 3) {
          case 0: at = random() % sizeof(Elf64_Ehdr); break;
          case 1: at = section_headers + random() % (good.size() - section_headers); break;
          default: at = random() % good.size(); break;
        }
        bad[at] = static_cast<char>(random() % 4 == 0 ? 0xff : random());
      }
      const std::string path = dir.path + "/bad" + std::to_string(round) + ".so";
      write_file(path, bad);
      ElfSymbolizer symbolizer;
      for (uint64_t probe : {vaddr, vaddr + 4, uint64_t{0}, uint64_t{0x1000}, ~uint64_t{0}}) {
        (void)symbolizer.lookup(path, "", probe);  // must return, whatever it says
      }
      (void)symbolizer.status(path, std::string(20, '\1'));
    }
    SUCCEED("300 corrupted files read without a crash");
  }
}

TEST_CASE("build_id_hex spells the bytes as the .build-id directories do") {
  CHECK(prof::analyzer::build_id_hex(std::string("\x01\xab\xff", 3)) == "01abff");
  CHECK(prof::analyzer::build_id_hex("").empty());
}
