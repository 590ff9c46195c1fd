#include "trace/importers/strace/strace_args.h"

#include <charconv>

#include "common/at_fdcwd.h"
#include "trace/syscalls/arg_format.h"
#include "trace/syscalls/fcntl_lock.h"
#include "trace/syscalls/flag_names.h"

namespace rastro::trace::strace {

namespace {

// Spaces only: an argument list has no tabs or line ends left.
std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string_view strip_comment(std::string_view s) {
  if (s.ends_with("*/")) {
    size_t open = s.rfind("/*");
    if (open != std::string_view::npos) return trim_spaces(s.substr(0, open));
  }
  return s;
}


// "abc\n"... -> unescaped contents; false if not a quoted string.
bool decode_quoted(std::string_view t, std::string* out) {
  if (t.empty() || t.front() != '"') return false;
  size_t i = 1;
  for (; i < t.size() && t[i] != '"'; ++i)
    if (t[i] == '\\') ++i;
  if (i >= t.size()) return false;
  std::string_view body = t.substr(1, i - 1);
  if (!needs_unescape(body)) {
    out->assign(body);
    return true;
  }
  auto u = c_unescape(body);
  if (!u.ok()) return false;
  *out = std::move(*u);
  return true;
}

// Value of a "key=value" item, or the item itself.
std::string_view value_of(std::string_view item, std::string_view* key) {
  size_t eq = item.find('=');
  if (eq != std::string_view::npos && eq > 0) {
    bool ident = true;
    for (char c : item.substr(0, eq)) ident = ident && ((c >= 'a' && c <= 'z') || c == '_');
    if (ident) {
      *key = item.substr(0, eq);
      return item.substr(eq + 1);
    }
  }
  *key = {};
  return item;
}

// clone3({flags=CLONE_VM|CLONE_THREAD|..., ...} ...): the flags field.
bool clone3_flags(std::string_view t, int64_t* flags) {
  size_t p = t.find("flags=");
  if (p == std::string_view::npos) return false;
  std::string_view f = t.substr(p + 6);
  size_t end = f.find_first_of(",}");
  auto v = parse_flags(ArgType::kCloneFlags, trim_spaces(f.substr(0, end)));
  if (!v) return false;
  *flags = *v;
  return true;
}

// fcntl's struct flock: "{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=1073741824, l_len=1}".
// F_GETLK shows what the kernel wrote back, with ", l_pid=N"; "{...} => {...}" (both the request
// and the answer) keeps the request. False when the text is no such struct (an address strace
// could not read).
bool decode_flock(std::string_view t, LockFields* f) {
  if (size_t arrow = t.find(" => "); arrow != std::string_view::npos) t = t.substr(0, arrow);
  t = trim_spaces(t);
  if (t.size() < 2 || t.front() != '{' || t.back() != '}') return false;
  int seen = 0;
  for (std::string_view item : split_args(t.substr(1, t.size() - 2))) {
    std::string_view key;
    std::string_view v = strip_comment(trim_spaces(value_of(item, &key)));
    ArgType type = key == "l_type" ? ArgType::kLockType : key == "l_whence" ? ArgType::kWhence : ArgType::kOffset;
    int64_t* slot = key == "l_type" ? &f->type : key == "l_whence" ? &f->whence : key == "l_start" ? &f->start
                  : key == "l_len" ? &f->len : nullptr;
    if (slot == nullptr) continue;  // l_pid
    auto n = parse_c_integer(v);
    if (!n) n = parse_flags(type, v);
    if (!n) return false;
    *slot = *n;
    ++seen;
  }
  return seen == 4;
}

struct Decoder {
  StringTable& strings;
  DecodedArgs& out;

  Arg decode(ArgType type, std::string_view text) {
    text = strip_comment(trim_spaces(text));
    Arg a;
    a.type = type;
    switch (type) {
      case ArgType::kBuf:
        return a;  // contents and address are never recorded
      case ArgType::kPath:
      case ArgType::kStr: {
        std::string s;
        if (decode_quoted(text, &s)) {
          a.str = strings.intern(s);
        } else if (text != "NULL" && !parse_c_integer(text)) {
          ++out.bad;
        }
        return a;
      }
      case ArgType::kFd:
      case ArgType::kDirFd: {
        std::string note;
        bool has_note = false;
        if (!DecodeAnnotatedInt(text, &a.value, &note, &has_note)) {
          ++out.bad;
          return a;
        }
        if (has_note) a.str = strings.intern(note);
        return a;
      }
      case ArgType::kTime:
        a.value = text == "NULL" || text == "0" ? 0 : 1;
        return a;
      case ArgType::kFdPair: {
        if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
          ++out.bad;
          return a;
        }
        auto items = split_args(text.substr(1, text.size() - 2));
        if (items.size() != 2) {
          ++out.bad;
          return a;
        }
        int64_t fds[2] = {-1, -1};
        for (size_t k = 0; k < 2; ++k) {
          bool has_note = false;
          if (!DecodeAnnotatedInt(items[k], &fds[k], &out.pair_paths[k], &has_note)) ++out.bad;
          out.pair_fds[k] = static_cast<int>(fds[k]);
        }
        a.value = static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint32_t>(fds[0])) |
                                       (static_cast<uint64_t>(fds[1]) << 32));
        return a;
      }
      default:
        break;
    }
    if (auto v = parse_c_integer(text)) {
      a.value = *v;
      return a;
    }
    if (text == "NULL") return a;
    // strace prints aliases as "BTRFS_IOC_CLONE or FICLONE".
    if (size_t alt = text.find(" or "); alt != std::string_view::npos) text = text.substr(0, alt);
    if (auto v = parse_flags(type, text)) {
      a.value = *v;
      return a;
    }
    if (has_flag_names(type) || type == ArgType::kPtr)
      ++out.bad;
    else
      ++out.symbolic;
    return a;
  }

  // Unknown syscalls: best effort int/str.
  Arg generic(std::string_view text) {
    text = strip_comment(trim_spaces(text));
    Arg a;
    std::string s;
    if (decode_quoted(text, &s)) {
      a.type = ArgType::kStr;
      a.str = strings.intern(s);
      return a;
    }
    a.type = ArgType::kInt;
    std::string note;
    bool has_note = false;
    if (DecodeAnnotatedInt(text, &a.value, &note, &has_note)) {
      if (has_note) a.str = strings.intern(note);
      return a;
    }
    if (text == "NULL") return a;
    if (auto v = parse_flags(ArgType::kInt, text)) {
      a.value = *v;
      return a;
    }
    a.type = ArgType::kStr;
    a.str = strings.intern(text);
    return a;
  }
};

}  // namespace

bool DecodeAnnotatedInt(std::string_view text, int64_t* value, std::string* note, bool* has_note) {
  text = trim_spaces(text);
  *has_note = false;
  std::string_view num = text;
  size_t lt = text.find('<');
  if (lt != std::string_view::npos && text.back() == '>') {
    num = text.substr(0, lt);
    std::string_view n = text.substr(lt + 1, text.size() - lt - 2);
    // -yy: "/dev/null<char 1:3>", "/dev/sda<block 8:0>": keep the path only.
    if (n.ends_with(">")) {
      size_t inner = n.rfind('<');
      if (inner != std::string_view::npos) {
        std::string_view dev = n.substr(inner + 1);
        if (dev.starts_with("char ") || dev.starts_with("block ")) n = n.substr(0, inner);
      }
    }
    if (needs_unescape(n)) {
      auto u = c_unescape(n);
      if (!u.ok()) return false;
      *note = std::move(*u);
    } else {
      note->assign(n);
    }
    *has_note = true;
  }
  if (num == "AT_FDCWD") {
    *value = kAtFdCwd;
    return true;
  }
  auto v = parse_c_integer(num);
  if (!v) return false;
  *value = *v;
  return true;
}

void DecodeStraceArgs(const SyscallInfo* info, std::string_view text, Event& e,
                      StringTable& strings, DecodedArgs& out) {
  Decoder d{strings, out};
  auto items = split_args(text);
  e.args = {};
  if (!info) {
    size_t n = std::min(items.size(), static_cast<size_t>(kMaxArgs));
    e.nargs = static_cast<uint8_t>(n);
    for (size_t i = 0; i < n; ++i) e.args[i] = d.generic(items[i]);
    return;
  }
  e.nargs = info->nargs;
  for (size_t i = 0; i < info->nargs; ++i) e.args[i].type = info->args[i];
  if (info->proc == ProcEffect::kClone) {
    // strace prints x86_64 clone as (child_stack=, flags=, parent_tid=, child_tidptr=, tls=);
    // the table keeps the kernel's order (flags, newsp, parent_tid, child_tid, tls).
    for (auto item : items) {
      std::string_view key;
      std::string_view v = value_of(item, &key);
      int slot = key == "flags" ? 0 : key == "child_stack" ? 1 : key == "parent_tid" ? 2
               : key == "child_tidptr" ? 3 : key == "tls" ? 4 : -1;
      if (slot < 0) continue;
      e.args[static_cast<size_t>(slot)] = d.decode(info->args[static_cast<size_t>(slot)], v);
      if (slot == 0) {
        out.clone_flags = e.args[0].value;
        out.has_clone_flags = true;
      }
    }
    return;
  }
  if (info->proc == ProcEffect::kClone3 && !items.empty()) out.has_clone_flags = clone3_flags(items[0], &out.clone_flags);
  const bool struct_arg = takes_lock_commands(info) && items.size() == 3 && items[2].starts_with("{");
  for (size_t i = 0; i < info->nargs && i < items.size(); ++i) {
    if (struct_arg && i == 2) break;  // decoded below
    e.args[i] = d.decode(info->args[i], items[i]);
  }
  if (!struct_arg) return;
  LockFields f;
  if (!is_lock_command(e.args[1].value))
    e.args[2] = d.decode(info->args[2], items[2]);  // F_SETOWN_EX & co.: not recorded
  else if (decode_flock(items[2], &f))
    set_lock_fields(e, f);  // the 6-argument lock form (fcntl_lock.h)
  else
    ++out.bad;  // a lock struct we cannot read: the 3-argument form, address unknown (0)
}

}  // namespace rastro::trace::strace
