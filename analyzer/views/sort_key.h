#pragma once
// torch's key_averages().table(sort_by=...) keys. Every key torch accepts is
// accepted, and the "device_*" spellings of newer torch releases mean the same as "cuda_*".
#include <optional>
#include <string>
#include <vector>

#include "views/key_averages.h"

namespace prof::analyzer {

// All accepted spellings, for --help and validation.
const std::vector<std::string>& sort_key_names();

// The value rows are sorted by (descending), or nullopt for an unknown key.
std::optional<double> sort_value(const std::string& key, const KeyAverage& row);

// Sorts descending by `key`, keeping first-occurrence order among equal
// values (Python's sorted(..., reverse=True) is stable the same way).
void sort_rows(std::vector<KeyAverage>& rows, const std::string& key);

}  // namespace prof::analyzer
