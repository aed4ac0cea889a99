#pragma once
// `profanalyze dump`: every record of a capture file as one JSON object per
// line, with absolute times (ns) and interned ids resolved. For scripts and
// tests that compare a recording with another source of truth, and for
// looking at exactly what the agent wrote.
#include <ostream>
#include <string>

namespace prof::analyzer {

// Streams `path` chunk by chunk. Returns false (after writing the error to
// `err`) when the file cannot be read; a truncated last chunk is a warning.
bool dump_records(const std::string& path, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
