#pragma once
// The words a PROF_* variable takes, each standing for one value: one table
// per option, from which the configuration parses the variable and the
// capture file records the value in effect (Process.options), so that the
// two can never disagree.
#include <cstddef>
#include <cstring>

namespace prof {

template <typename T>
struct OptionWord {
  const char* word;
  T value;
};

// The word for `value`; the table's first word when it has none.
template <typename T, size_t N>
const char* word_of(const OptionWord<T> (&table)[N], T value) {
  for (const OptionWord<T>& entry : table) {
    if (entry.value == value) return entry.word;
  }
  return table[0].word;
}

// The value `word` stands for; false when it is not in the table.
template <typename T, size_t N>
bool value_of(const OptionWord<T> (&table)[N], const char* word, T& value) {
  for (const OptionWord<T>& entry : table) {
    if (strcmp(entry.word, word) == 0) {
      value = entry.value;
      return true;
    }
  }
  return false;
}

}  // namespace prof
