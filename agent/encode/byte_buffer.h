#pragma once
// A growable byte buffer for the writer's hot path: the chunk's lists.
// std::string's push_back costs ~25 instructions a byte (SSO and terminator
// upkeep); ProtoWriter writes into this one's spare capacity through a
// cursor of its own (proto_wire.h) and sets the size when done.
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace prof {

class ByteBuffer {
 public:
  char* data() { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }  // keeps the memory for the next chunk
  std::string_view view() const { return {data_.get(), size_}; }

  // `size` must not exceed capacity(): the bytes up to it were written
  // through data().
  void resize(size_t size) { size_ = size; }
  // At least `capacity` bytes, growing by doubling (amortised O(1) appends).
  void reserve(size_t capacity) {
    if (capacity <= capacity_) return;
    size_t grown = capacity_ == 0 ? 4096 : capacity_ * 2;
    while (grown < capacity) grown *= 2;
    std::unique_ptr<char[]> bigger(new char[grown]);
    if (size_ != 0) memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = grown;
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace prof
