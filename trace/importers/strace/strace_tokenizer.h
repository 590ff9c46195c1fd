// Splits an strace log into logical lines. When strace writes to a terminal or stderr its own
// messages can land in the middle of a syscall line:
//   1700000000.1 clone(child_stack=NULL, flags=...|SIGCHLDstrace: Process 9172 attached
//   , child_tidptr=0x7ff0af3fca10) = 9172 <0.000136>
// The tokenizer yields the message as a line of its own and re-joins the syscall line.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

namespace rastro::trace::strace {

class StraceTokenizer {
 public:
  explicit StraceTokenizer(std::istream& in) : in_(in) {}
  // Next logical line and the number of its (first) physical line; false at the end.
  bool next(std::string_view* line, uint64_t* lineno);
  bool read_error() const { return in_.bad(); }
  // Bytes of the input consumed so far (for progress).
  uint64_t bytes_read() const { return bytes_; }

 private:
  std::istream& in_;
  std::string buf_;
  std::string carry_;      // start of a syscall line cut by a spliced message
  uint64_t carry_line_ = 0;
  std::string message_;    // a spliced message waiting to be returned
  uint64_t message_line_ = 0;
  bool has_message_ = false;
  uint64_t physical_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace rastro::trace::strace
