#include "views/number_format.h"

namespace prof::analyzer {

std::string with_commas(const std::string& digits) {
  const size_t dot = digits.find('.');
  const size_t int_end = dot == std::string::npos ? digits.size() : dot;
  const size_t int_start = !digits.empty() && digits[0] == '-' ? 1 : 0;
  std::string out = digits.substr(0, int_start);
  for (size_t i = int_start; i < int_end; ++i) {
    out += digits[i];
    const size_t left = int_end - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out + digits.substr(int_end);
}

std::string with_commas(uint64_t n) { return with_commas(std::to_string(n)); }

}  // namespace prof::analyzer
