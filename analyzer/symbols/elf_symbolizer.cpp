#include "symbols/elf_symbolizer.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace prof::analyzer {
namespace {

// A read-only view of a file by offset; every read is checked against the
// size fstat reported, so corrupt offsets and sizes fail instead of reading
// past the end or allocating what the file does not hold.
class ElfFile {
 public:
  ElfFile() = default;
  ~ElfFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  bool open(const std::string& path) {
    // O_NONBLOCK: a path naming a FIFO must not hang the analyzer.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) return false;
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) return false;
    size_ = static_cast<uint64_t>(info.st_size);
    return true;
  }

  uint64_t size() const { return size_; }

  bool fits(uint64_t offset, uint64_t bytes) const { return offset <= size_ && bytes <= size_ - offset; }

  bool read(uint64_t offset, void* out, size_t bytes) const {
    if (!fits(offset, bytes)) return false;
    auto* to = static_cast<char*>(out);
    while (bytes > 0) {
      const ssize_t got = ::pread(fd_, to, bytes, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;  // shrank under us, or an I/O error
      to += got;
      offset += static_cast<uint64_t>(got);
      bytes -= static_cast<size_t>(got);
    }
    return true;
  }

  bool read(uint64_t offset, uint64_t bytes, std::string& out) const {
    if (!fits(offset, bytes)) return false;
    out.resize(bytes);
    return read(offset, out.data(), bytes);
  }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// NT_GNU_BUILD_ID in a block of notes; empty when absent or malformed.
std::string find_build_id(const std::string& notes, uint64_t alignment) {
  const size_t align = alignment == 8 ? 8 : 4;
  size_t offset = 0;
  while (notes.size() - offset >= sizeof(Elf64_Nhdr)) {
    Elf64_Nhdr header;
    std::memcpy(&header, notes.data() + offset, sizeof(header));
    offset += sizeof(header);
    const uint64_t name_bytes = (uint64_t{header.n_namesz} + align - 1) / align * align;
    const uint64_t desc_bytes = (uint64_t{header.n_descsz} + align - 1) / align * align;
    if (name_bytes > notes.size() - offset || desc_bytes > notes.size() - offset - name_bytes) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
        std::memcmp(notes.data() + offset, "GNU", 4) == 0) {
      return notes.substr(offset + name_bytes, header.n_descsz);
    }
    offset += name_bytes + desc_bytes;
  }
  return {};
}

// Notes over a few KiB are not build ids: don't read a corrupt huge size.
constexpr uint64_t kMaxNotesBytes = 1 << 16;
// A mangled name this long is corrupt or hostile; the demangler recurses.
constexpr size_t kMaxDemangleBytes = 1 << 14;

std::string demangle(const std::string& name) {
  if (name.size() < 2 || name.compare(0, 2, "_Z") != 0 || name.size() > kMaxDemangleBytes) return name;
  int status = 0;
  char* readable = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || readable == nullptr) {
    std::free(readable);
    return name;
  }
  std::string result(readable);
  std::free(readable);
  return result;
}

}  // namespace

struct ElfSymbolizer::Module {
  struct Function {
    uint64_t start = 0;
    uint64_t size = 0;
    uint64_t limit = 0;     // end of its section: bounds a symbol without size
    uint32_t table = 0;     // index into names
    uint32_t name_offset = 0;
    uint8_t binding_rank = 0;  // lower is preferred among aliases
  };

  ModuleStatus status = ModuleStatus::unreadable;
  std::string build_id;
  bool has_symtab = false;
  std::vector<std::string> names;  // the string tables, NUL-terminated entries
  std::vector<Function> functions;  // sorted by start
  std::vector<uint64_t> max_end_up_to;  // max(start + size) of functions[0..i]

  const char* name(const Function& f) const { return names[f.table].data() + f.name_offset; }

  void load(const std::string& path);
  void read_symbols(const ElfFile& file, const std::vector<Elf64_Shdr>& sections);
  void finish();
  std::optional<Symbol> find(uint64_t vaddr) const;
};

namespace {

struct Headers {
  Elf64_Ehdr elf{};
  std::vector<Elf64_Shdr> sections;
};

ModuleStatus read_headers(const ElfFile& file, Headers& out) {
  Elf64_Ehdr& ehdr = out.elf;
  if (!file.read(0, &ehdr, sizeof(ehdr))) return ModuleStatus::not_elf;
  if (std::memcmp(ehdr.e_ident, ELFMAG, SELFMAG) != 0) return ModuleStatus::not_elf;
  if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
      (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)) {
    return ModuleStatus::unsupported;
  }
  if (ehdr.e_shoff == 0) return ModuleStatus::ok;  // no section headers: no symbols
  if (ehdr.e_shentsize != sizeof(Elf64_Shdr)) return ModuleStatus::not_elf;
  uint64_t count = ehdr.e_shnum;
  if (count == 0) {  // more than SHN_LORESERVE sections: the count is in section 0
    Elf64_Shdr first{};
    if (!file.read(ehdr.e_shoff, &first, sizeof(first))) return ModuleStatus::not_elf;
    count = first.sh_size;
  }
  if (count > file.size() / sizeof(Elf64_Shdr) || !file.fits(ehdr.e_shoff, count * sizeof(Elf64_Shdr))) {
    return ModuleStatus::not_elf;
  }
  out.sections.resize(count);
  if (!file.read(ehdr.e_shoff, out.sections.data(), count * sizeof(Elf64_Shdr))) return ModuleStatus::not_elf;
  return ModuleStatus::ok;
}

std::string build_id_from_sections(const ElfFile& file, const std::vector<Elf64_Shdr>& sections) {
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_NOTE || section.sh_size > kMaxNotesBytes) continue;
    std::string notes;
    if (!file.read(section.sh_offset, section.sh_size, notes)) continue;
    if (std::string id = find_build_id(notes, section.sh_addralign); !id.empty()) return id;
  }
  return {};
}

std::string build_id_from_segments(const ElfFile& file, const Elf64_Ehdr& ehdr) {
  if (ehdr.e_phentsize != sizeof(Elf64_Phdr) || ehdr.e_phnum == 0) return {};
  std::vector<Elf64_Phdr> segments(ehdr.e_phnum);
  if (!file.read(ehdr.e_phoff, segments.data(), segments.size() * sizeof(Elf64_Phdr))) return {};
  for (const Elf64_Phdr& segment : segments) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > kMaxNotesBytes) continue;
    std::string notes;
    if (!file.read(segment.p_offset, segment.p_filesz, notes)) continue;
    if (std::string id = find_build_id(notes, segment.p_align); !id.empty()) return id;
  }
  return {};
}

}  // namespace

void ElfSymbolizer::Module::load(const std::string& path) {
  ElfFile file;
  if (!file.open(path)) {
    status = ModuleStatus::unreadable;
    return;
  }
  Headers headers;
  status = read_headers(file, headers);
  if (status != ModuleStatus::ok) return;
  build_id = build_id_from_sections(file, headers.sections);
  if (build_id.empty()) build_id = build_id_from_segments(file, headers.elf);
  read_symbols(file, headers.sections);
}

void ElfSymbolizer::Module::read_symbols(const ElfFile& file, const std::vector<Elf64_Shdr>& sections) {
  for (const Elf64_Shdr& table : sections) {
    if (table.sh_type != SHT_SYMTAB && table.sh_type != SHT_DYNSYM) continue;
    if (table.sh_entsize != 0 && table.sh_entsize != sizeof(Elf64_Sym)) continue;
    if (table.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[table.sh_link];
    if (strings.sh_type != SHT_STRTAB || names.size() >= UINT32_MAX) continue;
    std::string symbol_bytes;
    std::string string_bytes;
    if (!file.read(table.sh_offset, table.sh_size, symbol_bytes)) continue;
    if (!file.read(strings.sh_offset, strings.sh_size, string_bytes)) continue;
    if (string_bytes.size() > UINT32_MAX) continue;
    if (table.sh_type == SHT_SYMTAB) has_symtab = true;

    const auto table_index = static_cast<uint32_t>(names.size());
    const size_t count = symbol_bytes.size() / sizeof(Elf64_Sym);
    for (size_t i = 0; i < count; ++i) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, symbol_bytes.data() + i * sizeof(Elf64_Sym), sizeof(symbol));
      const unsigned type = ELF64_ST_TYPE(symbol.st_info);
      if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= SHN_LORESERVE) continue;
      if (symbol.st_value == 0 || symbol.st_name == 0 || symbol.st_name >= string_bytes.size()) continue;
      // The name must end inside the table.
      if (std::memchr(string_bytes.data() + symbol.st_name, '\0', string_bytes.size() - symbol.st_name) == nullptr) {
        continue;
      }
      Function function;
      function.start = symbol.st_value;
      function.size = symbol.st_size;
      if (function.size > UINT64_MAX - function.start) continue;
      function.limit = function.start + function.size;
      if (symbol.st_shndx < sections.size()) {
        const Elf64_Shdr& home = sections[symbol.st_shndx];
        if (home.sh_size <= UINT64_MAX - home.sh_addr) {
          function.limit = std::max(function.limit, home.sh_addr + home.sh_size);
        }
      }
      function.table = table_index;
      function.name_offset = symbol.st_name;
      const unsigned binding = ELF64_ST_BIND(symbol.st_info);
      function.binding_rank = binding == STB_GLOBAL ? 0 : binding == STB_WEAK ? 1 : 2;
      functions.push_back(function);
    }
    names.push_back(std::move(string_bytes));
  }
}

void ElfSymbolizer::Module::finish() {
  std::sort(functions.begin(), functions.end(), [](const Function& a, const Function& b) {
    return a.start < b.start || (a.start == b.start && a.size > b.size);
  });
  max_end_up_to.resize(functions.size());
  uint64_t max_end = 0;
  for (size_t i = 0; i < functions.size(); ++i) {
    max_end = std::max(max_end, functions[i].start + functions[i].size);
    max_end_up_to[i] = max_end;
  }
}

std::optional<Symbol> ElfSymbolizer::Module::find(uint64_t vaddr) const {
  auto after = std::upper_bound(functions.begin(), functions.end(), vaddr,
                                [](uint64_t a, const Function& f) { return a < f.start; });
  if (after == functions.begin()) return std::nullopt;
  const size_t last = static_cast<size_t>(after - functions.begin()) - 1;

  // The tightest sized symbol containing vaddr; among aliases (same range)
  // prefer global over weak over local, then the shorter name (`malloc`
  // rather than `__libc_malloc`). max_end_up_to bounds the walk back exactly.
  const Function* best = nullptr;
  for (size_t i = last + 1; i-- > 0 && max_end_up_to[i] > vaddr;) {
    const Function& f = functions[i];
    if (f.size == 0 || vaddr >= f.start + f.size) continue;
    if (best == nullptr || f.size < best->size ||
        (f.size == best->size &&
         (f.binding_rank < best->binding_rank ||
          (f.binding_rank == best->binding_rank && std::strlen(name(f)) < std::strlen(name(*best)))))) {
      best = &f;
    }
  }
  // No sized symbol holds it: a size-less one (assembly) right before it,
  // within its section, and with no other function in between.
  if (best == nullptr) {
    const Function& f = functions[last];
    if (f.size == 0 && vaddr < f.limit) best = &f;
  }
  if (best == nullptr) return std::nullopt;
  Symbol symbol;
  symbol.raw_name = name(*best);
  symbol.name = demangle(symbol.raw_name);
  symbol.start = best->start;
  symbol.size = best->size;
  symbol.offset = vaddr - best->start;
  return symbol;
}

const char* describe(ModuleStatus status) {
  switch (status) {
    case ModuleStatus::ok: return "ok";
    case ModuleStatus::unreadable: return "file missing or unreadable";
    case ModuleStatus::not_elf: return "not an ELF file, or corrupt";
    case ModuleStatus::unsupported: return "unsupported ELF (32-bit, big-endian or relocatable)";
    case ModuleStatus::build_id_mismatch: return "build id differs from the captured module";
  }
  return "unknown";
}

std::string build_id_hex(const std::string& build_id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(build_id.size() * 2);
  for (unsigned char byte : build_id) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

ElfSymbolizer::ElfSymbolizer() = default;
ElfSymbolizer::~ElfSymbolizer() = default;

const ElfSymbolizer::Module& ElfSymbolizer::module(const std::string& path) {
  auto& slot = cache_[path];
  if (slot) return *slot;
  slot = std::make_unique<Module>();
  Module& loaded = *slot;
  loaded.load(path);
  // A stripped file (no .symtab): a separate debug file found by build id
  // (Debian's -dbgsym packages) has the full table at the same addresses.
  if (loaded.status == ModuleStatus::ok && !loaded.has_symtab && loaded.build_id.size() >= 2 &&
      !debug_directory_.empty()) {
    const std::string hex = build_id_hex(loaded.build_id);
    Module debug;
    debug.load(debug_directory_ + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
    if (debug.status == ModuleStatus::ok && debug.has_symtab && debug.build_id == loaded.build_id) {
      const auto base = static_cast<uint32_t>(loaded.names.size());
      for (auto& f : debug.functions) {
        f.table += base;
        loaded.functions.push_back(f);
      }
      for (auto& names : debug.names) loaded.names.push_back(std::move(names));
      loaded.has_symtab = true;
    }
  }
  loaded.finish();
  return loaded;
}

ModuleStatus ElfSymbolizer::status(const std::string& module_path, const std::string& expected_build_id) {
  const Module& loaded = module(module_path);
  if (loaded.status != ModuleStatus::ok) return loaded.status;
  if (!expected_build_id.empty() && !loaded.build_id.empty() && expected_build_id != loaded.build_id) {
    return ModuleStatus::build_id_mismatch;
  }
  return ModuleStatus::ok;
}

std::optional<Symbol> ElfSymbolizer::lookup(const std::string& module_path, const std::string& expected_build_id,
                                            uint64_t file_vaddr) {
  if (status(module_path, expected_build_id) != ModuleStatus::ok) return std::nullopt;
  return module(module_path).find(file_vaddr);
}

}  // namespace prof::analyzer
