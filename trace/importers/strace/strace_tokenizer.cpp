#include "trace/importers/strace/strace_tokenizer.h"

#include "trace/importers/strace/strace_parser.h"

namespace rastro::trace::strace {

bool StraceTokenizer::next(std::string_view* line, uint64_t* lineno) {
  if (has_message_) {
    has_message_ = false;
    buf_.swap(message_);
    *line = buf_;
    *lineno = message_line_;
    return true;
  }
  while (std::getline(in_, buf_)) {
    ++physical_;
    bytes_ += buf_.size() + 1;
    uint64_t first = physical_;
    if (!carry_.empty()) {
      buf_.insert(0, carry_);
      carry_.clear();
      first = carry_line_;
    }
    size_t p = FindSplicedMessage(buf_);
    if (p != std::string::npos) {
      std::string_view msg = std::string_view(buf_).substr(p);
      if (msg.ends_with("attached") || msg.ends_with("detached") || msg.ends_with("\r")) {
        message_.assign(msg);
        message_line_ = physical_;
        has_message_ = true;
        carry_.assign(buf_, 0, p);
        carry_line_ = first;
        // Yield the message now; the syscall line continues on the next physical line.
        has_message_ = false;
        buf_.swap(message_);
        *line = buf_;
        *lineno = message_line_;
        return true;
      }
    }
    *line = buf_;
    *lineno = first;
    return true;
  }
  if (!carry_.empty()) {  // the log ended inside a cut line
    buf_.swap(carry_);
    carry_.clear();
    *line = buf_;
    *lineno = carry_line_;
    return true;
  }
  return false;
}

}  // namespace rastro::trace::strace
