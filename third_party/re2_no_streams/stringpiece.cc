// StringPiece's out-of-line members for prof_re2, in place of RE2's
// re2/stringpiece.cc, whose operator<<(std::ostream&, StringPiece) linked
// libstdc++'s iostreams and locales into libprof.so (see util/logging.h
// here). Each member has std::string_view's meaning, which is RE2's:
// substr clamps its arguments, find and rfind answer npos for no match.
// No operator<<: nothing in this project streams a StringPiece.
#include <string.h>

#include <string_view>

#include "re2/stringpiece.h"

namespace re2 {

const StringPiece::size_type StringPiece::npos;  // initialised in stringpiece.h

StringPiece::size_type StringPiece::copy(char* buf, size_type n, size_type pos) const {
  if (pos > size_) pos = size_;
  const size_type count = n < size_ - pos ? n : size_ - pos;
  if (count != 0) memcpy(buf, data_ + pos, count);
  return count;
}

StringPiece StringPiece::substr(size_type pos, size_type n) const {
  if (pos > size_) pos = size_;
  if (n > size_ - pos) n = size_ - pos;
  return StringPiece(data_ + pos, n);
}

StringPiece::size_type StringPiece::find(const StringPiece& s, size_type pos) const {
  return std::string_view(data_, size_).find(std::string_view(s.data_, s.size_), pos);
}

StringPiece::size_type StringPiece::find(char c, size_type pos) const {
  return std::string_view(data_, size_).find(c, pos);
}

StringPiece::size_type StringPiece::rfind(const StringPiece& s, size_type pos) const {
  return std::string_view(data_, size_).rfind(std::string_view(s.data_, s.size_), pos);
}

StringPiece::size_type StringPiece::rfind(char c, size_type pos) const {
  return std::string_view(data_, size_).rfind(c, pos);
}

}  // namespace re2
