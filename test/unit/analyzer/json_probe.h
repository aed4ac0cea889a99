#pragma once
// Reads numbers out of profanalyze's --format json for tests, without a
// JSON library: the value of `field` in the first row object whose "name"
// is `name` (rows are flat objects, so the next occurrence of the field
// after the name belongs to that row).
#include <optional>
#include <string>

namespace prof::testing {

inline std::optional<std::string> json_field(const std::string& json, const std::string& name, const std::string& field,
                                            size_t from = 0) {
  const size_t row = json.find("{\"name\":\"" + name + "\"", from);
  if (row == std::string::npos) return std::nullopt;
  const size_t end = json.find('}', row);
  const size_t at = json.find("\"" + field + "\":", row);
  if (at == std::string::npos || at > end) return std::nullopt;
  const size_t value = at + field.size() + 3;
  return json.substr(value, json.find_first_of(",}", value) - value);
}

inline uint64_t json_u64(const std::string& json, const std::string& name, const std::string& field) {
  const auto v = json_field(json, name, field);
  return v ? std::stoull(*v) : UINT64_MAX;
}

}  // namespace prof::testing
