#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/trace/sample_trace.h"
#include "trace/exporters/exporter.h"

namespace rastro::trace {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Scratch {
  Scratch() {
    dir = (fs::temp_directory_path() / ("rastro-fio-iolog-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name()))
              .string();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string dir;
};

TEST(FioIologExporter, IsRegistered) {
  ASSERT_NE(find_exporter("fio-iolog"), nullptr);
}

// Expected text written by hand from the six events of sample_trace.h (all within 1 us: every
// timestamp is 0). /b's write comes from a descriptor opened before the trace; it stays open in
// the trace, so the log closes it at the end.
TEST(FioIologExporter, SampleTraceText) {
  Scratch s;
  std::string out = s.dir + "/t.iolog";
  fio_iolog_exporter().write(testing::sample_trace(), out);
  EXPECT_EQ(slurp(out),
            "fio version 3 iolog\n"
            "0 f1_a add\n"
            "0 f2_b add\n"
            "0 f1_a open\n"
            "0 f1_a read 0 4096\n"
            "0 f2_b open\n"
            "0 f2_b write 0 10\n"
            "0 f1_a close\n"
            "0 f2_b close\n");
  std::string layout = slurp(out + ".layout.sh");
  EXPECT_NE(layout.find("truncate -s 4096 'f1_a'\n"), std::string::npos) << layout;
  EXPECT_EQ(layout.find("f2_b"), std::string::npos) << "a file only written needs no layout";
}

// A trace with microsecond-scale times, a sequential reader, a random pread, a writer with
// fsync and a path with blanks, replayed by the installed fio: fio's own byte counts must equal
// the bytes the calls of the trace moved (summed here from the events, not by the exporter).
TEST(FioIologExporter, FioReplaysTheSameBytes) {
  if (std::system("fio --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "fio is not installed (scripts/setup.sh)";
  Trace t;
  StrId in = t.strings.intern("/data/in file");
  StrId out = t.strings.intern("/data/out");
  int64_t now = 0;
  uint64_t read_bytes = 0, write_bytes = 0, syncs = 0;
  auto ev = [&](int32_t nr, int64_t rv, std::initializer_list<Arg> args) {
    Event e;
    e.seq = t.events.size();
    e.pid = 1;
    e.tid = 1;
    e.nr = nr;
    e.begin_ns = now;
    e.end_ns = now + 2000;
    now += 5000;
    e.rvalue = rv;
    for (const Arg& a : args) e.args[e.nargs++] = a;
    t.events.push_back(e);
  };
  Arg buf{ArgType::kBuf, 0, kNoStr};
  ev(257, 3, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, in}, {ArgType::kOpenFlags, O_RDONLY, kNoStr}, {ArgType::kMode, 0, kNoStr}});
  for (int i = 0; i < 10; ++i) {
    ev(0, 65536, {{ArgType::kFd, 3, in}, buf, {ArgType::kCount, 65536, kNoStr}});
    read_bytes += 65536;
  }
  ev(17, 4096, {{ArgType::kFd, 3, in}, buf, {ArgType::kCount, 4096, kNoStr}, {ArgType::kOffset, 1 << 20, kNoStr}});
  read_bytes += 4096;
  ev(257, 4, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, out}, {ArgType::kOpenFlags, O_WRONLY | O_CREAT, kNoStr}, {ArgType::kMode, 0644, kNoStr}});
  for (int i = 0; i < 100; ++i) {
    ev(1, 8192, {{ArgType::kFd, 4, out}, buf, {ArgType::kCount, 8192, kNoStr}});
    write_bytes += 8192;
  }
  ev(74, 0, {{ArgType::kFd, 4, out}});
  ++syncs;
  ev(3, 0, {{ArgType::kFd, 4, out}});
  ev(3, 0, {{ArgType::kFd, 3, in}});

  Scratch s;
  fio_iolog_exporter().write(t, s.dir + "/t.iolog");
  std::string cmd = "cd " + s.dir + " && sh t.iolog.layout.sh && fio --name=replay --read_iolog=t.iolog "
                    "--output-format=json --output=fio.json >fio.log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(s.dir + "/fio.log");
  nlohmann::json j = nlohmann::json::parse(slurp(s.dir + "/fio.json"));
  const auto& job = j.at("jobs").at(0);
  EXPECT_EQ(job.at("error").get<int>(), 0);
  EXPECT_EQ(job.at("read").at("io_bytes").get<uint64_t>(), read_bytes);
  EXPECT_EQ(job.at("write").at("io_bytes").get<uint64_t>(), write_bytes);
  EXPECT_EQ(job.at("read").at("total_ios").get<uint64_t>(), 11u);
  EXPECT_EQ(job.at("write").at("total_ios").get<uint64_t>(), 100u);
  EXPECT_EQ(job.at("sync").at("total_ios").get<uint64_t>(), syncs);
  EXPECT_EQ(fs::file_size(s.dir + "/f2_out"), write_bytes);
}

}  // namespace
}  // namespace rastro::trace
