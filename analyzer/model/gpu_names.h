#pragma once
// Display names of GPU work, as torch/Kineto tables show them, so users see
// the rows they know ("Memcpy HtoD (Pageable -> Device)").
#include <string>

#include "io/records.h"

namespace prof::analyzer {

// Kernel names: prof::demangled_kernel_name (shared/step_rule.h), so that a
// step rule matches the names reports show, in both programs.
std::string memcpy_name(const recorded::Memcpy& copy);
std::string memset_name(const recorded::Memset& set);
// Kineto's short copy kinds: "HtoD", "DtoH", "PtoP", ...
const char* copy_kind_name(CopyKind kind);

}  // namespace prof::analyzer
