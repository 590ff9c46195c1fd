// The io_uring workload of issue #17, shared by the capture test (ebpf_uring_test.cpp) and the
// replay test (tests/cli/uring_replay_test.cpp): fio's io_uring engine at queue depth 8 doing
// 2000 random 4 KiB reads of an 8 MiB file laid out beforehand (so fio issues nothing but the
// reads), with fio's own record of what it issued (`--write_iolog`, which we did not write).
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace rastro::testing {

struct FioUringJob {
  static constexpr int kReads = 2000;
  static constexpr long kFileBytes = 8L << 20;
  std::string dir, data, iolog;
  bool direct = false;  // O_DIRECT: each read goes to the device, so 8 are in flight at once

  // Makes a scratch directory with the data file; `dir` is empty when that failed.
  static FioUringJob make(bool direct) {
    FioUringJob j;
    j.direct = direct;
    char tmpl[] = "/tmp/rastro_uring_XXXXXX";
    if (!::mkdtemp(tmpl)) return j;
    j.dir = tmpl;
    j.data = j.dir + "/data";
    j.iolog = j.dir + "/iolog";
    std::ofstream f(j.data, std::ios::binary);
    const std::string mib(1 << 20, 'r');
    for (long i = 0; i < kFileBytes >> 20; ++i) f << mib;
    return j;
  }

  std::vector<std::string> command() const {
    return {"/usr/bin/fio",          "--name=uring",           "--ioengine=io_uring", "--iodepth=8",
            "--rw=randread",         "--bs=4k",                "--size=8M",           "--number_ios=2000",
            "--direct=" + std::string(direct ? "1" : "0"),     "--filename=" + data,
            "--write_iolog=" + iolog, "--output=/dev/null"};
  }

  // (file, offset, length) of every read in fio's log (version 3: "TIME FILE read OFFSET LENGTH").
  std::multiset<std::tuple<std::string, long long, long long>> logged_reads() const {
    std::multiset<std::tuple<std::string, long long, long long>> out;
    std::ifstream in(iolog);
    for (std::string line; std::getline(in, line);) {
      std::istringstream ls(line);
      std::string t, file, action;
      long long off = 0, len = 0;
      if (ls >> t >> file >> action >> off >> len && action == "read") out.emplace(file, off, len);
    }
    return out;
  }

  void remove() const {
    std::remove(data.c_str());
    std::remove(iolog.c_str());
    ::rmdir(dir.c_str());
  }
};

inline bool fio_installed() {
  if (::access("/usr/bin/fio", X_OK) == 0) return true;
  std::printf("fio is not installed (scripts/setup.sh installs it)\n");
  return false;
}

}  // namespace rastro::testing
