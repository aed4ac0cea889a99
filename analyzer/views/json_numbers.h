#pragma once
// Numbers as trace writes them, the same bytes as std::to_chars makes but
// cheaper for the cases trace meets millions of times: integers (to_chars
// counts the digits a division by 10^4 at a time before it writes them),
// and "%.3f" of bandwidths and occupancies (to_chars with a precision went
// through its general fixed-point printer: 450 instructions a number, where
// integer arithmetic on the double's bits takes a tenth of that).
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace prof::analyzer {

// Digits of `value` in decimal (1 for 0).
inline int decimal_length(uint64_t value) {
  static constexpr uint64_t kPowers[] = {1ull,
                                         10ull,
                                         100ull,
                                         1000ull,
                                         10000ull,
                                         100000ull,
                                         1000000ull,
                                         10000000ull,
                                         100000000ull,
                                         1000000000ull,
                                         10000000000ull,
                                         100000000000ull,
                                         1000000000000ull,
                                         10000000000000ull,
                                         100000000000000ull,
                                         1000000000000000ull,
                                         10000000000000000ull,
                                         100000000000000000ull,
                                         1000000000000000000ull,
                                         10000000000000000000ull};
  // floor(log10(2) * bits) is 1233 * bits >> 12 for up to 64 bits: the
  // power of ten at or below 2^(bits - 1), or one below that.
  const int below = (std::bit_width(value | 1) * 1233) >> 12;
  return below + (value >= kPowers[below] ? 1 : 0) + (value == 0 ? 1 : 0);
}

// Writes `value` in decimal at `out` (room for 20 characters); returns the
// end.
inline char* write_decimal(char* out, uint64_t value) {
  static constexpr char kPairs[201] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char* const end = out + decimal_length(value);
  char* at = end;
  while (value >= 100) {
    const auto pair = static_cast<unsigned>(value % 100);
    value /= 100;
    at -= 2;
    std::memcpy(at, kPairs + 2 * pair, 2);
  }
  if (value >= 10) {
    std::memcpy(at - 2, kPairs + 2 * value, 2);
  } else {
    at[-1] = static_cast<char>('0' + value);
  }
  return end;
}

inline char* write_decimal(char* out, int64_t value) {
  if (value >= 0) return write_decimal(out, static_cast<uint64_t>(value));
  *out = '-';
  return write_decimal(out + 1, ~static_cast<uint64_t>(value) + 1);
}

// `value` with three decimals, as std::to_chars(..., fixed, 3) and printf's
// "%.3f" write it: the exact binary value rounded to thousandths, half to
// even. Returns nullptr, writing nothing, where this does not apply
// (negative, not finite, 2^63 or more): then to_chars.
inline char* write_fixed3(char* out, double value) {
  const auto bits = std::bit_cast<uint64_t>(value);
  const auto biased = static_cast<int>(bits >> 52 & 0x7ff);
  if (bits >> 63 != 0 || biased == 0x7ff) return nullptr;
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  // value = mantissa * 2^exponent exactly.
  const uint64_t mantissa = biased != 0 ? fraction | uint64_t{1} << 52 : fraction;
  const int exponent = biased != 0 ? biased - 1075 : -1074;
  uint64_t thousandths = 0;
  if (exponent >= 0) {
    if (exponent > 10) return nullptr;  // 2^63 or more: whole numbers past uint64's thousandths
    out = write_decimal(out, mantissa << exponent);
    std::memcpy(out, ".000", 4);
    return out + 4;
  }
  const int shift = -exponent;
  const uint64_t scaled = mantissa * 1000;  // below 2^63
  if (shift < 64) {
    thousandths = scaled >> shift;
    const uint64_t rest = scaled & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (thousandths & 1) != 0)) ++thousandths;
  }  // else scaled is below half of 2^shift: 0.000
  out = write_decimal(out, thousandths / 1000);
  const auto decimals = static_cast<unsigned>(thousandths % 1000);
  out[0] = '.';
  out[1] = static_cast<char>('0' + decimals / 100);
  out[2] = static_cast<char>('0' + decimals / 10 % 10);
  out[3] = static_cast<char>('0' + decimals % 10);
  return out + 4;
}

}  // namespace prof::analyzer
