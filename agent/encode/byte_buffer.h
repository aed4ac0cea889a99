#pragma once
// A growable byte buffer for the writer's hot path. std::string's
// push_back costs ~25 instructions a byte (SSO and terminator upkeep) and was
// 40% of the writer's instructions (callgrind, 60k records); this one is a
// bounds check and a store. It offers the subset of std::string's interface
// that ProtoWriter uses, so the writer works on either.
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace prof {

class ByteBuffer {
 public:
  void push_back(char c) {
    if (size_ == capacity_) grow(1);
    data_[size_++] = c;
  }
  void append(const char* bytes, size_t n) {
    if (capacity_ - size_ < n) grow(n);
    if (n != 0) memcpy(data_.get() + size_, bytes, n);
    size_ += n;
  }
  void append(std::string_view bytes) { append(bytes.data(), bytes.size()); }
  // Opens `n` bytes at `at` (for a length prefix that needs more than one).
  void insert(size_t at, size_t n, char fill) {
    if (capacity_ - size_ < n) grow(n);
    memmove(data_.get() + at + n, data_.get() + at, size_ - at);
    memset(data_.get() + at, fill, n);
    size_ += n;
  }
  // Room for up to `n` bytes written in place, then advance() by what was used.
  char* tail(size_t n) {
    if (capacity_ - size_ < n) grow(n);
    return data_.get() + size_;
  }
  void advance(size_t n) { size_ += n; }
  char& operator[](size_t i) { return data_[i]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }  // keeps the memory for the next chunk
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  void grow(size_t needed) {
    size_t capacity = capacity_ == 0 ? 4096 : capacity_ * 2;
    while (capacity - size_ < needed) capacity *= 2;
    std::unique_ptr<char[]> bigger(new char[capacity]);
    if (size_ != 0) memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = capacity;
  }

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace prof
