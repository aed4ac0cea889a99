// json_numbers.h: the same bytes as std::to_chars, on the edges (powers of
// ten, the extremes, ties of "%.3f") and on millions of random numbers.
#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "views/json_numbers.h"

namespace {

template <typename Integer>
std::string ours(Integer value) {
  char text[32];
  return std::string(text, prof::analyzer::write_decimal(text, value));
}
template <typename Integer>
std::string theirs(Integer value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}
std::string ours_fixed3(double value) {
  char text[64];
  char* end = prof::analyzer::write_fixed3(text, value);
  return end ? std::string(text, end) : "(to_chars)";
}
std::string theirs_fixed3(double value) {
  char text[400];
  return std::string(text, std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, 3).ptr);
}

}  // namespace

TEST_CASE("write_decimal writes what to_chars writes") {
  CHECK(ours(uint64_t{0}) == "0");
  CHECK(ours(UINT64_MAX) == "18446744073709551615");
  CHECK(ours(INT64_MIN) == "-9223372036854775808");
  CHECK(ours(int64_t{-1}) == "-1");
  for (uint64_t power = 1, i = 0; i < 20; ++i, power *= 10)
    for (uint64_t near = power > 2 ? power - 2 : 0; near <= power + 2; ++near) {
      CHECK(ours(near) == theirs(near));
      CHECK(prof::analyzer::decimal_length(near) == static_cast<int>(theirs(near).size()));
    }
  std::mt19937_64 random(30);
  bool same = true;
  uint64_t value = 0;
  for (int i = 0; i < 1000000 && same; ++i) {
    value = random() >> (random() % 64);
    const auto negative = -static_cast<int64_t>(value >> 1);
    same = ours(value) == theirs(value) && ours(negative) == theirs(negative);
  }
  INFO("value " << value);
  CHECK(same);
}

TEST_CASE("write_fixed3 writes what to_chars writes with three decimals, ties to even") {
  CHECK(ours_fixed3(0.0) == "0.000");
  CHECK(ours_fixed3(0.0625) == "0.062");  // 62.5 thousandths: to the even one
  CHECK(ours_fixed3(0.1875) == "0.188");
  CHECK(ours_fixed3(1234.5) == "1234.500");
  CHECK(ours_fixed3(1e-320) == "0.000");
  CHECK(ours_fixed3(std::ldexp(1.0, 62)) == theirs_fixed3(std::ldexp(1.0, 62)));
  CHECK(ours_fixed3(std::ldexp(1.0, 63)) == "(to_chars)");
  CHECK(ours_fixed3(-1.0) == "(to_chars)");
  CHECK(ours_fixed3(INFINITY) == "(to_chars)");
  std::mt19937_64 random(30);
  bool same = true;
  double value = 0;
  for (int i = 0; i < 1000000 && same; ++i) {
    switch (i % 4) {
      case 0: value = std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 120)); break;
      case 1: value = static_cast<double>(random() % 100000000) / static_cast<double>(1 + random() % 1000000); break;
      case 2: value = static_cast<double>(random() % 2000001) / 2000.0; break;  // near ties
      default: value = static_cast<double>(random() % 1000000) / 16.0 / (1 << (random() % 10)); break;  // ties
    }
    same = ours_fixed3(value) == theirs_fixed3(value);
  }
  INFO("value " << value);
  CHECK(same);
}
