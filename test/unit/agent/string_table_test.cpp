#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "../framed_chunk.h"
#include "proto/prof.pb.h"
#include "record/string_table.h"

namespace {

}  // namespace

TEST_CASE("a string is defined once, in the chunk that first uses it") {
  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  const uint64_t a = strings.intern("forward", chunk);
  const uint64_t b = strings.intern("backward", chunk);
  CHECK(a != 0);
  CHECK(b != a);
  CHECK(strings.intern("forward", chunk) == a);
  const prof::proto::Chunk first = parse_framed(chunk.finish());
  REQUIRE(first.strings_size() == 2);
  CHECK(first.strings(0).id() == a);
  CHECK(first.strings(0).value() == "forward");
  CHECK(first.strings(1).id() == b);

  // A later chunk reuses the ids without defining them again.
  CHECK(strings.intern("backward", chunk) == b);
  const uint64_t c = strings.intern("optimizer", chunk);
  const prof::proto::Chunk second = parse_framed(chunk.finish());
  REQUIRE(second.strings_size() == 1);
  CHECK(second.strings(0).id() == c);
  CHECK(strings.size() == 3);
}

TEST_CASE("static strings are interned by address but share ids with equal text") {
  static const char kName[] = "cudaMemcpyAsync";
  const std::string same_text = "cudaMemcpyAsync";
  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  const uint64_t by_address = strings.intern_static(kName, chunk);
  CHECK(strings.intern_static(kName, chunk) == by_address);
  CHECK(strings.intern(same_text, chunk) == by_address);
  CHECK(strings.intern_static(nullptr, chunk) == 0);
  CHECK(parse_framed(chunk.finish()).strings_size() == 1);
}

TEST_CASE("the tables keep every id as they grow far past their first size") {
  // 64 slots at first: thousands of entries make both tables double many
  // times, and every entry must still be found under its first id.
  constexpr int kCount = 5000;
  std::vector<std::string> texts;
  for (int i = 0; i < kCount; ++i) texts.push_back("kernel_" + std::to_string(i));
  static char addresses[kCount][16];  // distinct static strings, by address
  for (int i = 0; i < kCount; ++i) std::snprintf(addresses[i], sizeof(addresses[i]), "api_%d", i);

  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  std::vector<uint64_t> text_ids, address_ids;
  for (int i = 0; i < kCount; ++i) {
    text_ids.push_back(strings.intern(texts[i], chunk));
    address_ids.push_back(strings.intern_static(addresses[i], chunk));
  }
  CHECK(parse_framed(chunk.finish()).strings_size() == 2 * kCount);
  for (int i = 0; i < kCount; ++i) {
    REQUIRE(strings.intern(texts[i], chunk) == text_ids[i]);
    REQUIRE(strings.intern_static(addresses[i], chunk) == address_ids[i]);
  }
  CHECK(parse_framed(chunk.finish()).strings_size() == 0);
  CHECK(strings.size() == 2 * kCount);
}

TEST_CASE("texts of every length keep their bytes while the table grows") {
  // Short texts share 64 KiB blocks, long ones get a block each; neither
  // may move or overwrite another as blocks are added.
  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  std::vector<std::string> texts;
  std::vector<uint64_t> ids;
  for (int i = 0; i < 3000; ++i) {
    std::string text = "range " + std::to_string(i);
    if (i % 100 == 7) text += std::string(20000 + i, static_cast<char>('a' + i % 26));  // longer than a quarter block
    if (i % 10 == 3) text += std::string(900, 'x');  // fills blocks faster
    texts.push_back(text);
    ids.push_back(strings.intern(text, chunk));
  }
  CHECK(strings.intern("", chunk) == strings.intern("", chunk));
  const prof::proto::Chunk defined = parse_framed(chunk.finish());
  REQUIRE(defined.strings_size() == 3001);
  for (size_t i = 0; i < texts.size(); ++i) {
    REQUIRE(strings.intern(texts[i], chunk) == ids[i]);
    REQUIRE(defined.strings(static_cast<int>(i)).value() == texts[i]);
  }
  CHECK(parse_framed(chunk.finish()).strings_size() == 0);
}

TEST_CASE("a name cached by its address is checked against its text, so a reused address stays exact") {
  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  // One buffer standing for a module's memory: unloaded, and another
  // module's names loaded at the same addresses.
  char module[64] = "_Z6kernelPf";
  const uint64_t first = strings.intern_by_address(module, chunk);
  CHECK(strings.intern_by_address(module, chunk) == first);
  CHECK(strings.intern(std::string_view("_Z6kernelPf"), chunk) == first);
  std::strcpy(module, "_Z6kernelPd");  // same length, another name
  const uint64_t same_length = strings.intern_by_address(module, chunk);
  CHECK(same_length != first);
  std::strcpy(module, "_Z6kernel");  // a prefix of the cached name
  const uint64_t prefix = strings.intern_by_address(module, chunk);
  CHECK(prefix != first);
  CHECK(prefix != same_length);
  std::strcpy(module, "_Z6kernelPdPf");  // the cached name is its prefix
  const uint64_t longer = strings.intern_by_address(module, chunk);
  CHECK(longer != prefix);
  CHECK(longer != same_length);
  std::strcpy(module, "");
  const uint64_t empty = strings.intern_by_address(module, chunk);
  CHECK(strings.intern_by_address(module, chunk) == empty);
  std::strcpy(module, "_Z6kernelPf");
  CHECK(strings.intern_by_address(module, chunk) == first);

  // The same with the text's length given (a ring record's copy of it).
  CHECK(strings.intern_by_address(module, std::string_view("_Z6kernelPf"), chunk) == first);
  CHECK(strings.intern_by_address(module, std::string_view("_Z6kernelPf"), chunk) == first);
  CHECK(strings.intern_by_address(module, std::string_view("_Z6kernelPd"), chunk) == same_length);
  CHECK(strings.intern_by_address(module, std::string_view("_Z6kernel"), chunk) == prefix);
  CHECK(strings.intern_by_address(module, std::string_view(""), chunk) == empty);
  CHECK(strings.intern_by_address(module, std::string_view("_Z6kernelPf"), chunk) == first);
  // Another address with a known text: the text's id.
  const char elsewhere[] = "_Z6kernelPd";
  CHECK(strings.intern_by_address(elsewhere, chunk) == same_length);
  CHECK(strings.intern_by_address(nullptr, std::string_view("_Z6kernelPdPf"), chunk) == longer);

  // Every text was defined once, with its own id.
  const prof::proto::Chunk defined = parse_framed(chunk.finish());
  std::vector<std::string> values;
  for (const auto& s : defined.strings()) values.push_back(s.value());
  CHECK(values == std::vector<std::string>{"_Z6kernelPf", "_Z6kernelPd", "_Z6kernel", "_Z6kernelPdPf", ""});
}

TEST_CASE("a name cached by its address is checked without reading past its page's end") {
  // intern_by_address compares a NUL-terminated text within its page when
  // the cached text's length lets it, else it takes its length first: a
  // shorter name at an address whose cached name ran on into the next page
  // (that module unloaded, the page since unmapped) must not be read past
  // its NUL into that page. Two pages, the second made inaccessible.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mapped = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapped != MAP_FAILED);
  char* const first_page = static_cast<char*>(mapped);
  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  // A name across the pages' boundary, then a short one at its address.
  char* const across = first_page + page - 8;
  std::strcpy(across, "_Z12long_kernel_namePf");
  const uint64_t long_name = strings.intern_by_address(across, chunk);
  CHECK(strings.intern_by_address(across, chunk) == long_name);
  std::strcpy(across, "_Z1kv");
  REQUIRE(mprotect(first_page + page, page, PROT_NONE) == 0);
  const uint64_t short_name = strings.intern_by_address(across, chunk);
  CHECK(short_name != long_name);
  CHECK(strings.intern_by_address(across, chunk) == short_name);
  // A name whose NUL is its page's last byte: compared within the page.
  char* const at_end = first_page + page - 12;
  std::strcpy(at_end, "_Z6kernelPf");
  const uint64_t at_end_name = strings.intern_by_address(at_end, chunk);
  CHECK(strings.intern_by_address(at_end, chunk) == at_end_name);
  std::strcpy(at_end, "_Z6kernel");
  CHECK(strings.intern_by_address(at_end, chunk) != at_end_name);
  munmap(mapped, 2 * page);
  const prof::proto::Chunk defined = parse_framed(chunk.finish());
  std::vector<std::string> values;
  for (const auto& s : defined.strings()) values.push_back(s.value());
  CHECK(values == std::vector<std::string>{"_Z12long_kernel_namePf", "_Z1kv", "_Z6kernelPf", "_Z6kernel"});
}

TEST_CASE("texts compared word by word differ wherever one byte differs, at every length") {
  // same_text's loads overlap by length (8, 16 and 32 bytes are its
  // boundaries): every byte of every length must be covered, and none
  // read past the end (AddressSanitizer's build checks the texts here are
  // exactly their length, each in its own allocation).
  for (size_t n = 0; n <= 40; ++n) {
    const std::unique_ptr<char[]> a(new char[n]);
    const std::unique_ptr<char[]> b(new char[n]);
    for (size_t i = 0; i < n; ++i) a[i] = b[i] = static_cast<char>('a' + i % 26);
    CHECK(prof::StringTable::same_text(a.get(), b.get(), n));
    for (size_t i = 0; i < n; ++i) {
      b[i] = static_cast<char>(b[i] ^ 0x20);
      INFO("length " << n << ", byte " << i << " differs");
      CHECK_FALSE(prof::StringTable::same_text(a.get(), b.get(), n));
      b[i] = a[i];
    }
  }
}
