#pragma once
// Values a run repeats millions of times (where a GPU record ran, what a copy
// moved), held once each so that a record keeps a 32-bit index instead.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace prof::analyzer {

// FNV-1a over 32-bit words: the keys interned are a few small integers.
template <size_t N>
size_t hash_words(const uint32_t (&words)[N]) {
  uint64_t hash = 1469598103934665603ull;
  for (uint32_t word : words) hash = (hash ^ word) * 1099511628211ull;
  return hash;
}

template <typename Value, typename Hash>
class InternedValues {
 public:
  // Equal values share an index; a new value gets the next one, from 0.
  uint32_t intern(const Value& value) {
    auto [it, added] = indices_.try_emplace(value, static_cast<uint32_t>(values_.size()));
    if (added) values_.push_back(value);
    return it->second;
  }
  const Value& operator[](uint32_t index) const { return values_[index]; }
  uint32_t size() const { return static_cast<uint32_t>(values_.size()); }

 private:
  std::vector<Value> values_;
  std::unordered_map<Value, uint32_t, Hash> indices_;
};

}  // namespace prof::analyzer
