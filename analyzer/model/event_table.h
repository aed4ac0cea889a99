#pragma once
// The Run's growing tables of events. A std::vector grows by copying into a
// buffer twice the size, so a table of N events has touched about 2N by the
// end, all of it fresh memory (on a VM the costliest part of loading: pages
// the host must back and clear). An EventTable grows by whole blocks that
// never move: it touches N, and a reference to an element stays valid.
#include <cstddef>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/huge_pages.h"

namespace prof::analyzer {

template <typename T>
class EventTable {
 public:
  // Elements per block: a power of two (an index splits with a shift) of
  // at least 4 MiB, so every block holds whole huge pages.
  static constexpr size_t kShift = [] {
    size_t shift = 0;
    while ((size_t{1} << shift) * sizeof(T) < (size_t{4} << 20)) ++shift;
    return shift;
  }();
  static constexpr size_t kBlock = size_t{1} << kShift;

  template <typename Table, typename Value>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = Value*;
    using reference = Value&;

    Iterator() = default;
    Iterator(Table* table, size_t index) : table_(table), index_(index) {}
    reference operator*() const { return (*table_)[index_]; }
    pointer operator->() const { return &(*table_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    Table* table_ = nullptr;
    size_t index_ = 0;
  };
  using iterator = Iterator<EventTable, T>;
  using const_iterator = Iterator<const EventTable, const T>;

  EventTable() = default;
  EventTable(const EventTable& other) {
    for (const T& value : other) push_back(value);
  }
  EventTable(EventTable&& other) noexcept
      : blocks_(std::exchange(other.blocks_, {})), size_(std::exchange(other.size_, 0)) {}
  EventTable& operator=(const EventTable& other) {
    if (this != &other) {
      clear();
      for (const T& value : other) push_back(value);
    }
    return *this;
  }
  EventTable& operator=(EventTable&& other) noexcept {
    std::swap(blocks_, other.blocks_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~EventTable() {
    for (T* block : blocks_) TableAllocator<T>().deallocate(block, kBlock);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return blocks_[i >> kShift][i & (kBlock - 1)]; }
  const T& operator[](size_t i) const { return blocks_[i >> kShift][i & (kBlock - 1)]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

  void push_back(const T& value) {
    if ((size_ >> kShift) == blocks_.size()) blocks_.push_back(TableAllocator<T>().allocate(kBlock));
    new (&(*this)[size_]) T(value);
    ++size_;
  }
  // Keeps the blocks for the next push_back.
  void clear() { size_ = 0; }

 private:
  // Raw blocks: T is a plain record (the destructor frees without running
  // element destructors).
  static_assert(std::is_trivially_destructible_v<T>);
  std::vector<T*> blocks_;
  size_t size_ = 0;
};

}  // namespace prof::analyzer
