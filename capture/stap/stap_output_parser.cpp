#include "capture/stap/stap_output_parser.h"

#include <charconv>
#include <cstdint>

#include <fmt/format.h>

#include "capture/common/raw_arg.h"
#include "trace/common/process_model.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::capture {

namespace {

bool parse_i64(std::string_view& rest, int64_t* v) {
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  auto r = std::from_chars(rest.data(), rest.data() + rest.size(), *v);
  if (r.ec != std::errc() || (r.ptr != rest.data() + rest.size() && *r.ptr != ' ')) return false;
  rest.remove_prefix(static_cast<size_t>(r.ptr - rest.data()));
  return true;
}

// Splits the string part into quoted strings.
bool split_quoted(std::string_view s, std::vector<std::string>* out) {
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    if (s[i] != '"') return false;
    size_t j = i + 1;
    while (j < s.size() && s[j] != '"') j += (s[j] == '\\') ? 2 : 1;
    if (j >= s.size()) return false;
    std::string v;
    if (!unquote_stap_string(s.substr(i, j - i + 1), &v)) return false;
    out->push_back(std::move(v));
    i = j + 1;
  }
  return true;
}

// Per-process fd tables rebuilt from the calls (see the header), on the one process model
// (trace/common/process_model.h; the stap script does not report the cwd, so it is not followed).
class FdTracker {
 public:
  trace::StrId get(int32_t pid, int64_t fd) const {
    const auto* p = procs_.find(pid);
    if (!p || !valid(fd)) return trace::kNoStr;
    auto f = p->files->fds.find(static_cast<int>(fd));
    return f == p->files->fds.end() ? trace::kNoStr : f->second.path;
  }
  void set(int32_t pid, int64_t fd, trace::StrId id) {
    if (!valid(fd)) return;
    if (id == trace::kNoStr)
      erase(pid, fd);
    else
      procs_.get(pid).files->fds[static_cast<int>(fd)] = Slot{id};
  }
  void erase(int32_t pid, int64_t fd) {
    if (valid(fd)) procs_.get(pid).files->fds.erase(static_cast<int>(fd));
  }
  void fork(int32_t parent, int32_t child) { procs_.clone(parent, child, false, false); }

 private:
  struct Slot {
    trace::StrId path = trace::kNoStr;
    bool cloexec = false;  // (not reported by the script; exec is not followed)
  };
  static bool valid(int64_t fd) { return fd >= 0 && fd <= INT32_MAX; }
  trace::ProcessModel<Slot, trace::StrId> procs_;
};

// An absolute path for a new fd, when one can be known from the call alone.
std::string resolve(std::string_view dir, std::string_view path) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  if (dir.empty() || path.empty()) return "";
  return fmt::format("{}/{}", dir, path);
}

}  // namespace

bool unquote_stap_string(std::string_view q, std::string* out) {
  if (q.size() < 2 || q.front() != '"' || q.back() != '"') return false;
  out->clear();
  for (size_t i = 1; i + 1 < q.size(); ++i) {
    char c = q[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (i + 2 >= q.size()) return false;
    char e = q[++i];
    switch (e) {
      case 'n': out->push_back('\n'); break;
      case 't': out->push_back('\t'); break;
      case 'r': out->push_back('\r'); break;
      case 'v': out->push_back('\v'); break;
      case 'f': out->push_back('\f'); break;
      case 'a': out->push_back('\a'); break;
      case 'b': out->push_back('\b'); break;
      case '"': out->push_back('"'); break;
      case '\\': out->push_back('\\'); break;
      case '\'': out->push_back('\''); break;
      case '?': out->push_back('?'); break;
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0';
          for (int k = 0; k < 2 && i + 2 < q.size() && q[i + 1] >= '0' && q[i + 1] <= '7'; ++k) v = v * 8 + (q[++i] - '0');
          out->push_back(static_cast<char>(v));
        } else {
          return false;
        }
    }
  }
  return true;
}

StapParseStats parse_stap_output(std::istream& in, trace::TraceSink& sink, int64_t offset) {
  StapParseStats st;
  FdTracker fds;
  auto& strings = sink.strings();
  std::string line;
  uint64_t lineno = 0;
  auto malformed = [&](const std::string& what) {
    if (st.malformed++ == 0) st.first_malformed = fmt::format("line {}: {}", lineno, what);
  };
  while (std::getline(in, line)) {
    ++lineno;
    std::string_view rest(line);
    if (rest.size() < 2 || (rest[0] != 'S' && rest[0] != 'X') || rest[1] != ' ') {
      ++st.ignored_lines;
      continue;
    }
    const bool exit_line = rest[0] == 'X';
    rest.remove_prefix(2);
    std::string_view strpart;
    if (!exit_line) {
      size_t bar = rest.find(" |");
      if (bar == std::string_view::npos) {
        malformed("missing ' | ' before the string arguments");
        continue;
      }
      strpart = rest.substr(bar + 2);
      rest = rest.substr(0, bar);
    }
    int64_t pid, tid, nr, begin, end = 0, ret = 0;
    int64_t raw[6] = {};
    bool ok = parse_i64(rest, &pid) && parse_i64(rest, &tid) && parse_i64(rest, &nr) && parse_i64(rest, &begin);
    if (ok && exit_line) {
      ok = parse_i64(rest, &raw[0]);
      end = begin;
    } else if (ok) {
      ok = parse_i64(rest, &end) && parse_i64(rest, &ret);
      for (int i = 0; ok && i < 6; ++i) ok = parse_i64(rest, &raw[i]);
    }
    if (!ok || nr < 0 || nr > 1023) {
      malformed("bad number field");
      continue;
    }
    std::vector<std::string> strs;
    if (!split_quoted(strpart, &strs)) {
      malformed("bad quoted string");
      continue;
    }
    trace::Event e;
    e.pid = static_cast<int32_t>(pid);
    e.tid = static_cast<int32_t>(tid);
    e.begin_ns = begin + offset;
    e.end_ns = end + offset;
    e.nr = static_cast<int32_t>(nr);
    e.rvalue = ret;
    const trace::SyscallInfo* info = trace::syscall_by_nr(static_cast<int>(nr));
    if (!info) {
      e.name = strings.intern(fmt::format("syscall_{}", nr));
      e.nargs = 6;
      for (int i = 0; i < 6; ++i) e.args[static_cast<size_t>(i)] = {trace::ArgType::kInt, raw[i], trace::kNoStr};
    } else {
      e.nargs = info->nargs;
      size_t next_str = 0;
      for (int i = 0; i < info->nargs; ++i) {
        auto type = info->args[static_cast<size_t>(i)];
        auto& a = e.args[static_cast<size_t>(i)];
        a.type = type;
        a.value = arg_value_from_register(type, static_cast<uint64_t>(raw[info->register_of(static_cast<size_t>(i))]));
        if (type == trace::ArgType::kPath || type == trace::ArgType::kStr) {
          if (next_str < strs.size()) a.str = strings.intern(strs[next_str++]);
        } else if (type == trace::ArgType::kFd || (type == trace::ArgType::kDirFd && a.value != -100)) {
          a.str = fds.get(e.pid, a.value);
        }
      }
      // Update the fd tables with this call's effect.
      if (ret >= 0 && info->ret == trace::ReturnKind::kFd) {
        std::string path;
        for (int i = 0; i < info->nargs; ++i)
          if (info->args[static_cast<size_t>(i)] == trace::ArgType::kPath) {
            std::string_view dir = i > 0 && info->args[static_cast<size_t>(i - 1)] == trace::ArgType::kDirFd
                                       ? strings.get(e.args[static_cast<size_t>(i - 1)].str)
                                       : std::string_view();
            path = resolve(dir, strings.get(e.args[static_cast<size_t>(i)].str));
          }
        if (path.empty() && info->nargs > 0 && info->args[0] == trace::ArgType::kFd)
          path = std::string(strings.get(e.args[0].str));  // dup family: same file
        fds.set(e.pid, ret, path.empty() ? trace::kNoStr : strings.intern(path));
      }
      if (info->fd == trace::FdEffect::kReleases && ret == 0) fds.erase(e.pid, e.args[0].value);
      if (info->creates_process() && ret > 0) {
        constexpr int64_t kCloneThread = 0x10000;
        bool thread = info->proc == trace::ProcEffect::kClone && (e.args[0].value & kCloneThread);
        if (!thread) fds.fork(e.pid, static_cast<int32_t>(ret));
      }
    }
    sink.append(e);
    ++st.events;
  }
  return st;
}

}  // namespace rastro::capture
