#pragma once
// Numbers as people read them: thousands separated by commas.
#include <cstdint>
#include <string>

namespace prof::analyzer {

// "-1234567.5" -> "-1,234,567.5": an optional '-', integer digits, then
// maybe a fraction, which is left alone.
std::string with_commas(const std::string& digits);
std::string with_commas(uint64_t n);

}  // namespace prof::analyzer
