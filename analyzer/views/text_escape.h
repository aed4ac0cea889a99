#pragma once
// Escaping for the formats the views write. Names come from the traced
// program (NVTX strings, kernel and symbol names), so they may hold any
// bytes: every writer escapes, and invalid UTF-8 becomes U+FFFD, since JSON
// and XML parsers refuse it outright.
#include <string>
#include <string_view>

namespace prof::analyzer {

// `text` with each invalid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// Appends `text` as a JSON string literal (quotes included): ", \ and
// control characters escaped, invalid UTF-8 replaced.
void append_json_string(std::string& out, std::string_view text);
// The same, as a new string.
std::string json_string(std::string_view text);

// `text` for XML character data and attribute values: & < > " ' as
// entities, control characters (illegal in XML 1.0) as '?', invalid UTF-8
// replaced.
std::string xml_escape(std::string_view text);

}  // namespace prof::analyzer
