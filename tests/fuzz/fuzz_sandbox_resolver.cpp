// libFuzzer property target: the replay sandbox resolver (replay/runtime/sandbox_resolver.h).
//
// Layout per input, inside a fresh temp root:  <tmp>/root/{d/e/, f}  and a sibling
// <tmp>/outside/secret that nothing may reach. The input is split into lines:
//   line 0, first byte: number of symlinks (0..7), bit 3: also try O_CREAT|O_WRONLY opens;
//   then per symlink two lines: its name (placed in root/ or root/d/, '/' flattened) and its
//   target (arbitrary bytes: absolute, relative, "..", /proc magic links, ...);
//   every further line is a traced path given to open / open_object / open_parent.
// Property: every fd the resolver returns names the root or something below it (checked with
// readlink of /proc/self/fd/N), and nothing is ever created outside the root. abort() otherwise.
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>
#include "replay/runtime/sandbox_resolver.h"
#include "tests/fuzz/fuzz_error_policy.h"

namespace fs = std::filesystem;
using rastro::replay::SandboxResolver;

namespace {

struct Dirs {
  std::string base, root, outside;
};

const Dirs& dirs() {
  static const Dirs d = [] {
    char tmpl[] = "/tmp/rastro-fuzz-sandbox-XXXXXX";
    if (!mkdtemp(tmpl)) std::abort();
    char real[PATH_MAX];
    if (!realpath(tmpl, real)) std::abort();  // /tmp itself may be a symlink
    Dirs r{real, std::string(real) + "/root", std::string(real) + "/outside"};
    fs::create_directories(r.outside);
    std::FILE* f = std::fopen((r.outside + "/secret").c_str(), "w");
    if (!f) std::abort();
    std::fclose(f);
    return r;
  }();
  return d;
}

void fail(const std::string& what, std::string_view path) {
  std::fprintf(stderr, "fuzz finding: %s (traced path \"%.*s\")\n", what.c_str(),
               static_cast<int>(path.size()), path.data());
  std::abort();
}

// The fd must name the root or a path below it.
void check_inside(int fd, std::string_view traced) {
  char buf[PATH_MAX + 1];
  ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, PATH_MAX);
  if (n < 0) fail("readlink of a returned fd failed", traced);
  std::string target(buf, static_cast<size_t>(n));
  const std::string& root = dirs().root;
  if (target != root && target.rfind(root + "/", 0) != 0) fail("resolved outside the root: " + target, traced);
}

std::string flatten(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c == '/' || c == '\0') ? '_' : c;
  if (out.empty() || out == "." || out == "..") out = "l";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Dirs& d = dirs();
  std::vector<std::string_view> lines;
  std::string_view all(reinterpret_cast<const char*>(data), size);
  while (!all.empty() && lines.size() < 64) {
    size_t nl = all.find('\n');
    lines.push_back(all.substr(0, nl));
    all = nl == std::string_view::npos ? std::string_view() : all.substr(nl + 1);
  }
  if (lines.empty() || lines[0].empty()) return 0;
  unsigned nlinks = static_cast<unsigned char>(lines[0][0]) & 7;
  bool creat = static_cast<unsigned char>(lines[0][0]) & 8;

  std::error_code ec;
  fs::remove_all(d.root, ec);  // never follows symlinks
  fs::create_directories(d.root + "/d/e");
  if (std::FILE* f = std::fopen((d.root + "/f").c_str(), "w")) std::fclose(f);
  size_t i = 1;
  for (unsigned k = 0; k < nlinks && i + 1 < lines.size(); ++k, i += 2) {
    std::string name = flatten(lines[i]);
    std::string where = (name[0] & 1) ? d.root + "/d/" : d.root + "/";
    std::string target(lines[i + 1].substr(0, 200));
    if (target.find('\0') != std::string::npos || target.empty()) continue;
    (void)symlink(target.c_str(), (where + name).c_str());
  }

  RASTRO_FUZZ_EXPECTED_ERRORS({
    SandboxResolver r(d.root);
    for (; i < lines.size(); ++i) {
      std::string abs = SandboxResolver::absolute("/d", lines[i]);
      if (SandboxResolver::check(abs) == rastro::replay::PathVerdict::kBadBytes) continue;
      int fd = r.open(abs, O_RDONLY | O_CLOEXEC, 0);
      if (fd >= 0) { check_inside(fd, abs); close(fd); }
      if (creat) {
        fd = r.open(abs, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) { check_inside(fd, abs); close(fd); }
      }
      for (bool follow : {true, false}) {
        fd = r.open_object(abs, follow);
        if (fd >= 0) { check_inside(fd, abs); close(fd); }
      }
      SandboxResolver::Parent parent;
      if (r.open_parent(abs, &parent) == 0) check_inside(parent.dir.get(), abs);
    }
  })

  // Nothing may have appeared next to the secret, nor in the temp dir besides root/outside.
  size_t outside_entries = 0;
  for (const auto& e : fs::directory_iterator(d.outside)) { (void)e; ++outside_entries; }
  if (outside_entries != 1) fail("a file was created outside the root", "");
  size_t base_entries = 0;
  for (const auto& e : fs::directory_iterator(d.base)) { (void)e; ++base_entries; }
  if (base_entries != 2) fail("a file was created next to the root", "");
  return 0;
}
