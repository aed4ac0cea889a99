#include "stacks/frame_rule.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>

namespace prof {
namespace {

// DWARF register numbers on x86-64 (System V ABI, figure 3.36).
constexpr uint64_t kRbp = 6;
constexpr uint64_t kRsp = 7;
constexpr uint64_t kReturnAddress = 16;

// Pointer encodings (DW_EH_PE_*), as .eh_frame and .eh_frame_hdr use them.
constexpr uint8_t kOmit = 0xff;
constexpr uint8_t kPcRel = 0x10;
constexpr uint8_t kDataRel = 0x30;
constexpr uint8_t kIndirect = 0x80;
constexpr uint8_t kSortedTable = 0x3b;  // datarel | sdata4: the binary-search table

// DWARF expression opcodes: the only forms CFI on x86-64 Linux uses for the
// registers we follow (stack realignment in main, glibc's signal trampoline).
constexpr uint8_t kOpBreg0 = 0x70;
constexpr uint8_t kOpDeref = 0x06;

// Reads only what the loader mapped, in the address space of this process: the
// CFI tables are trusted as libgcc trusts them for exceptions.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;

  bool left(size_t n) const { return p <= end && static_cast<size_t>(end - p) >= n; }
  template <typename T>
  bool fixed(T& out) {
    if (!left(sizeof(T))) return false;
    std::memcpy(&out, p, sizeof(T));
    p += sizeof(T);
    return true;
  }
  bool uleb(uint64_t& out) {
    out = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (p >= end) return false;
      const uint8_t byte = *p++;
      out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool sleb(int64_t& out) {
    uint64_t value = 0;
    unsigned shift = 0;
    uint8_t byte = 0;
    do {
      if (p >= end || shift >= 64) return false;
      byte = *p++;
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) value |= ~uint64_t{0} << shift;
    out = static_cast<int64_t>(value);
    return true;
  }
  // An encoded pointer; `data_base` for datarel (only .eh_frame_hdr uses it).
  bool pointer(uint8_t encoding, uint64_t& out, uint64_t data_base = 0) {
    if (encoding == kOmit) return false;
    const auto field = reinterpret_cast<uint64_t>(p);
    uint64_t value = 0;
    switch (encoding & 0x0f) {
      case 0x00: if (!fixed(value)) return false; break;
      case 0x01: if (!uleb(value)) return false; break;
      case 0x02: { uint16_t v; if (!fixed(v)) return false; value = v; break; }
      case 0x03: { uint32_t v; if (!fixed(v)) return false; value = v; break; }
      case 0x04: if (!fixed(value)) return false; break;
      case 0x09: { int64_t v; if (!sleb(v)) return false; value = static_cast<uint64_t>(v); break; }
      case 0x0a: { int16_t v; if (!fixed(v)) return false; value = static_cast<uint64_t>(int64_t{v}); break; }
      case 0x0b: { int32_t v; if (!fixed(v)) return false; value = static_cast<uint64_t>(int64_t{v}); break; }
      case 0x0c: if (!fixed(value)) return false; break;
      default: return false;
    }
    switch (encoding & 0x70) {
      case 0x00: break;
      case kPcRel: value += field; break;
      case kDataRel: if (data_base == 0) return false; value += data_base; break;
      default: return false;  // textrel, funcrel, aligned: not used on x86-64 Linux
    }
    if (encoding & kIndirect) value = *reinterpret_cast<const uint64_t*>(value);
    out = value;
    return true;
  }
};

// One register's rule while the CFI program runs.
struct RegisterRule {
  enum Kind : uint8_t { same, at, undefined } kind = same;
  FrameBase base = FrameBase::cfa;
  int64_t offset = 0;
};

struct Row {
  uint64_t cfa_register = kRsp;
  int64_t cfa_offset = 8;
  bool cfa_deref = false;    // DW_CFA_def_cfa_expression: breg; deref
  bool cfa_expression = false;
  RegisterRule rbp;
  RegisterRule ra;
  bool unsupported = false;
};

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = -8;
  uint64_t ra_register = kReturnAddress;
  uint8_t fde_encoding = 0;
  bool has_augmentation_data = false;
  bool signal_frame = false;
  const uint8_t* instructions = nullptr;
  const uint8_t* end = nullptr;
};

bool parse_cie(const uint8_t* at, Cie& cie) {
  uint32_t length = 0;
  std::memcpy(&length, at, 4);
  if (length == 0 || length == 0xffffffff) return false;  // 64-bit DWARF: never in .eh_frame on Linux
  Reader r{at + 4, at + 4 + length};
  uint32_t id = 1;
  uint8_t version = 0;
  if (!r.fixed(id) || id != 0 || !r.fixed(version) || (version != 1 && version != 3)) return false;
  const char* augmentation = reinterpret_cast<const char*>(r.p);
  const size_t augmentation_length = strnlen(augmentation, static_cast<size_t>(r.end - r.p));
  r.p += augmentation_length + 1;
  if (augmentation[0] != '\0' && augmentation[0] != 'z') return false;  // "eh": pre-2000 GCC
  if (!r.uleb(cie.code_align) || !r.sleb(cie.data_align)) return false;
  if (version == 1) {
    uint8_t ra = 0;
    if (!r.fixed(ra)) return false;
    cie.ra_register = ra;
  } else if (!r.uleb(cie.ra_register)) {
    return false;
  }
  if (augmentation[0] == 'z') {
    cie.has_augmentation_data = true;
    uint64_t data_length = 0;
    if (!r.uleb(data_length) || !r.left(data_length)) return false;
    const uint8_t* data_end = r.p + data_length;
    for (size_t i = 1; i < augmentation_length; ++i) {
      switch (augmentation[i]) {
        case 'R': if (!r.fixed(cie.fde_encoding)) return false; break;
        case 'L': { uint8_t unused; if (!r.fixed(unused)) return false; break; }
        case 'P': {
          uint8_t encoding = 0;
          uint64_t personality = 0;
          // The personality routine's address is not needed: skip its bytes
          // without following an indirect pointer.
          if (!r.fixed(encoding) || !r.pointer(encoding & ~kIndirect, personality)) return false;
          break;
        }
        case 'S': cie.signal_frame = true; break;
        default: r.p = data_end; break;  // unknown: the length says where the data ends
      }
    }
    r.p = data_end;
  }
  cie.instructions = r.p;
  cie.end = r.end;
  return true;
}

bool base_of(uint64_t dwarf_register, FrameBase& base) {
  if (dwarf_register == kRsp) base = FrameBase::rsp;
  else if (dwarf_register == kRbp) base = FrameBase::rbp;
  else return false;
  return true;
}

// A DWARF expression of the form `DW_OP_breg<n> offset [DW_OP_deref]`.
bool parse_expression(Reader r, uint64_t& base_register, int64_t& offset, bool& deref) {
  uint8_t op = 0;
  if (!r.fixed(op) || op < kOpBreg0 || op > kOpBreg0 + 31 || !r.sleb(offset)) return false;
  base_register = op - kOpBreg0;
  deref = false;
  if (r.p < r.end) {
    if (!r.fixed(op) || op != kOpDeref) return false;
    deref = true;
  }
  return r.p == r.end;
}

// Runs CFI instructions until the row that covers `pc`. `initial` is the
// CIE's row (for DW_CFA_restore); null while running the CIE itself.
void run_cfi(const Cie& cie, const uint8_t* begin, const uint8_t* end, uint64_t location, uint64_t pc,
             Row& row, const Row* initial) {
  constexpr int kMaxRemembered = 16;
  Row remembered[kMaxRemembered];
  int depth = 0;
  Reader r{begin, end};
  auto set_rule = [&](uint64_t reg, RegisterRule rule) {
    if (reg == kRbp) row.rbp = rule;
    else if (reg == cie.ra_register) row.ra = rule;
  };
  auto restore = [&](uint64_t reg) {
    if (initial == nullptr) return;
    if (reg == kRbp) row.rbp = initial->rbp;
    else if (reg == cie.ra_register) row.ra = initial->ra;
  };
  auto offset_rule = [&](int64_t factored) {
    return RegisterRule{RegisterRule::at, FrameBase::cfa, factored * cie.data_align};
  };
  while (r.p < r.end && !row.unsupported) {
    uint8_t op = 0;
    r.fixed(op);
    const uint8_t operand = op & 0x3f;
    uint64_t a = 0;
    uint64_t b = 0;
    int64_t s = 0;
    switch (op >> 6) {
      case 1:  // DW_CFA_advance_loc
        location += operand * cie.code_align;
        if (location > pc) return;
        continue;
      case 2:  // DW_CFA_offset
        if (!r.uleb(a)) { row.unsupported = true; break; }
        set_rule(operand, offset_rule(static_cast<int64_t>(a)));
        continue;
      case 3:  // DW_CFA_restore
        restore(operand);
        continue;
      default:
        break;
    }
    bool ok = true;
    switch (op) {
      case 0x00: break;  // nop
      case 0x01: ok = r.pointer(cie.fde_encoding, a); if (ok) { location = a; if (location > pc) return; } break;
      case 0x02: { uint8_t d = 0; ok = r.fixed(d); location += d * cie.code_align; if (ok && location > pc) return; break; }
      case 0x03: { uint16_t d = 0; ok = r.fixed(d); location += d * cie.code_align; if (ok && location > pc) return; break; }
      case 0x04: { uint32_t d = 0; ok = r.fixed(d); location += d * cie.code_align; if (ok && location > pc) return; break; }
      case 0x05: ok = r.uleb(a) && r.uleb(b); if (ok) set_rule(a, offset_rule(static_cast<int64_t>(b))); break;
      case 0x06: ok = r.uleb(a); if (ok) restore(a); break;
      case 0x07: ok = r.uleb(a); if (ok) set_rule(a, RegisterRule{RegisterRule::undefined}); break;
      case 0x08: ok = r.uleb(a); if (ok) set_rule(a, RegisterRule{}); break;
      case 0x09:  // DW_CFA_register: a register kept in another register
        ok = r.uleb(a) && r.uleb(b);
        if (ok && (a == kRbp || a == cie.ra_register)) ok = false;
        break;
      case 0x0a:
        if (depth == kMaxRemembered) ok = false;
        else remembered[depth++] = row;
        break;
      case 0x0b:
        if (depth == 0) ok = false;
        else row = remembered[--depth];
        break;
      case 0x0c: ok = r.uleb(a) && r.uleb(b); row.cfa_register = a; row.cfa_offset = static_cast<int64_t>(b);
        row.cfa_expression = false; break;
      case 0x0d: ok = r.uleb(a); row.cfa_register = a; row.cfa_expression = false; break;
      case 0x0e: ok = r.uleb(a); row.cfa_offset = static_cast<int64_t>(a); break;
      case 0x0f: {  // DW_CFA_def_cfa_expression
        ok = r.uleb(a) && r.left(a);
        if (!ok) break;
        int64_t offset = 0;
        bool deref = false;
        ok = parse_expression(Reader{r.p, r.p + a}, row.cfa_register, offset, deref);
        row.cfa_offset = offset;
        row.cfa_deref = deref;
        row.cfa_expression = true;
        r.p += a;
        break;
      }
      case 0x10: {  // DW_CFA_expression: the register is saved at the expression's address
        ok = r.uleb(a) && r.uleb(b) && r.left(b);
        if (!ok) break;
        if (a == kRbp || a == cie.ra_register) {
          uint64_t base_register = 0;
          int64_t offset = 0;
          bool deref = true;
          FrameBase base{};
          ok = parse_expression(Reader{r.p, r.p + b}, base_register, offset, deref) && !deref &&
               base_of(base_register, base);
          if (ok) set_rule(a, RegisterRule{RegisterRule::at, base, offset});
        }
        r.p += b;
        break;
      }
      case 0x11: ok = r.uleb(a) && r.sleb(s); if (ok) set_rule(a, RegisterRule{RegisterRule::at, FrameBase::cfa, s * cie.data_align}); break;
      case 0x12: ok = r.uleb(a) && r.sleb(s); row.cfa_register = a; row.cfa_offset = s * cie.data_align;
        row.cfa_expression = false; break;
      case 0x13: ok = r.sleb(s); row.cfa_offset = s * cie.data_align; break;
      case 0x14: case 0x15: case 0x16:  // val_offset, val_offset_sf, val_expression
        ok = r.uleb(a);
        if (ok && (a == kRbp || a == cie.ra_register)) ok = false;
        else if (ok && op == 0x14) ok = r.uleb(b);
        else if (ok && op == 0x15) ok = r.sleb(s);
        else if (ok) { ok = r.uleb(b) && r.left(b); if (ok) r.p += b; }
        break;
      case 0x2e: ok = r.uleb(a); break;  // DW_CFA_GNU_args_size
      case 0x2f: ok = r.uleb(a) && r.uleb(b); if (ok) set_rule(a, offset_rule(-static_cast<int64_t>(b))); break;
      default: ok = false; break;
    }
    if (!ok) row.unsupported = true;
  }
}

// The FDE covering `pc` in the object whose .eh_frame_hdr is at `hdr`.
const uint8_t* find_fde(const uint8_t* hdr, uint64_t pc) {
  if (hdr[0] != 1 || hdr[3] != kSortedTable) return nullptr;
  Reader r{hdr + 4, hdr + 4 + 16};
  uint64_t eh_frame = 0;
  uint64_t count = 0;
  const auto base = reinterpret_cast<uint64_t>(hdr);
  if (!r.pointer(hdr[1], eh_frame, base) || !r.pointer(hdr[2], count, base) || count == 0) return nullptr;
  const auto* table = reinterpret_cast<const int32_t*>(r.p);
  // The last entry whose initial location is at or below pc.
  uint64_t low = 0;
  uint64_t high = count;
  while (high - low > 1) {
    const uint64_t middle = low + (high - low) / 2;
    if (base + static_cast<int64_t>(table[2 * middle]) <= pc) low = middle;
    else high = middle;
  }
  if (base + static_cast<int64_t>(table[2 * low]) > pc) return nullptr;
  return hdr + table[2 * low + 1];
}

FrameRule rule_from_fde(const uint8_t* fde, uint64_t pc) {
  FrameRule rule;
  rule.kind = FrameRuleKind::unsupported;
  uint32_t length = 0;
  std::memcpy(&length, fde, 4);
  if (length == 0 || length == 0xffffffff) return rule;
  const uint8_t* end = fde + 4 + length;
  uint32_t cie_offset = 0;
  std::memcpy(&cie_offset, fde + 4, 4);
  Cie cie;
  if (cie_offset == 0 || !parse_cie(fde + 4 - cie_offset, cie)) return rule;
  Reader r{fde + 8, end};
  uint64_t begin = 0;
  uint64_t range = 0;
  if (!r.pointer(cie.fde_encoding, begin) || !r.pointer(cie.fde_encoding & 0x0f, range)) return rule;
  if (pc < begin || pc - begin >= range) return FrameRule{};  // a gap between functions
  if (cie.has_augmentation_data) {
    uint64_t data_length = 0;
    if (!r.uleb(data_length) || !r.left(data_length)) return rule;
    r.p += data_length;
  }
  Row initial;
  initial.ra = RegisterRule{RegisterRule::undefined};
  run_cfi(cie, cie.instructions, cie.end, begin, ~uint64_t{0}, initial, nullptr);
  Row row = initial;
  run_cfi(cie, r.p, end, begin, pc, row, &initial);
  if (row.unsupported || initial.unsupported) return rule;

  rule.signal_frame = cie.signal_frame;
  if (row.ra.kind == RegisterRule::undefined) {
    rule.kind = FrameRuleKind::outermost;
    return rule;
  }
  if (row.ra.kind != RegisterRule::at || !base_of(row.cfa_register, rule.cfa_base)) return rule;
  if (row.cfa_expression != row.cfa_deref) return rule;  // an expression without deref: unseen on x86-64
  constexpr int64_t kLimit = int64_t{1} << 30;
  auto fits = [&](int64_t value) { return value > -kLimit && value < kLimit; };
  if (!fits(row.cfa_offset) || !fits(row.ra.offset) || !fits(row.rbp.offset)) return rule;
  rule.cfa_deref = row.cfa_deref;
  rule.cfa_offset = static_cast<int32_t>(row.cfa_offset);
  rule.ra_base = row.ra.base;
  rule.ra_offset = static_cast<int32_t>(row.ra.offset);
  rule.rbp_saved = row.rbp.kind == RegisterRule::at;
  rule.rbp_base = row.rbp.base;
  rule.rbp_offset = static_cast<int32_t>(row.rbp.offset);
  rule.kind = FrameRuleKind::step;
  return rule;
}

#ifdef DLFO_STRUCT_HAS_EH_DBASE
// glibc 2.35's lock-free lookup, resolved at run time so that the agent still
// loads on older glibc (which gets the dl_iterate_phdr path).
using FindObjectFn = int (*)(void* address, struct dl_find_object* result);
// Not in AgentState: a symbol resolved once, used without the agent too.
std::atomic<FindObjectFn> g_find_object{nullptr};
#endif

struct PhdrSearch {
  uint64_t pc;
  const uint8_t* hdr;
};

int find_eh_frame_hdr(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<PhdrSearch*>(data);
  bool contains = false;
  const uint8_t* hdr = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
    const uint64_t start = info->dlpi_addr + phdr.p_vaddr;
    if (phdr.p_type == PT_LOAD && search->pc >= start && search->pc - start < phdr.p_memsz) contains = true;
    if (phdr.p_type == PT_GNU_EH_FRAME) hdr = reinterpret_cast<const uint8_t*>(start);
  }
  if (!contains) return 0;
  search->hdr = hdr;
  return 1;
}

const uint8_t* eh_frame_hdr_for(uint64_t pc) {
#ifdef DLFO_STRUCT_HAS_EH_DBASE
  if (const FindObjectFn find_object = g_find_object.load(std::memory_order_relaxed)) {
    struct dl_find_object object;
    if (find_object(reinterpret_cast<void*>(pc), &object) != 0) return nullptr;
    return static_cast<const uint8_t*>(object.dlfo_eh_frame);
  }
#endif
  PhdrSearch search{pc, nullptr};
  dl_iterate_phdr(find_eh_frame_hdr, &search);
  return search.hdr;
}

}  // namespace

void init_frame_rules() {
#ifdef DLFO_STRUCT_HAS_EH_DBASE
  g_find_object.store(reinterpret_cast<FindObjectFn>(dlsym(RTLD_DEFAULT, "_dl_find_object")),
                      std::memory_order_relaxed);
#endif
}

FrameRule find_frame_rule(uint64_t pc) {
  const uint8_t* hdr = eh_frame_hdr_for(pc);
  if (hdr == nullptr) return FrameRule{};
  const uint8_t* fde = find_fde(hdr, pc);
  if (fde == nullptr) return FrameRule{};
  return rule_from_fde(fde, pc);
}

}  // namespace prof
