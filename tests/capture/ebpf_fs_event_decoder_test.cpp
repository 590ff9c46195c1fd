// Decoding of hand-made fs_events.bpf.c records (no BPF needed).
#include "capture/ebpf/fs_event_decoder.h"

#include <linux/types.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "capture/ebpf/fs_events.h"
#include "trace/model/page_fault.h"
#include "trace/model/trace.h"
#include "trace/syscalls/fcntl_lock.h"

namespace rastro::capture::ebpf {
namespace {

struct RecordBuilder {
  fs_event ev{};
  std::string data;
  RecordBuilder(int nr, int64_t ret) {
    ev.nr = nr;
    ev.ret = ret;
    ev.pid = 100;
    ev.tid = 101;
    ev.begin_ns = 1000;
    ev.end_ns = 1500;
  }
  RecordBuilder& arg(int k, uint64_t v) {
    ev.args[k] = v;
    return *this;
  }
  RecordBuilder& str(int k, int kind, const std::string& bytes) {
    ev.strs[ev.nstrs] = {static_cast<__u8>(k), static_cast<__u8>(kind), static_cast<__u16>(bytes.size())};
    ++ev.nstrs;
    data += bytes;
    return *this;
  }
  std::vector<std::byte> bytes() {
    ev.str_bytes = static_cast<__u32>(data.size());
    std::vector<std::byte> out(sizeof ev + data.size());
    std::memcpy(out.data(), &ev, sizeof ev);
    std::memcpy(out.data() + sizeof ev, data.data(), data.size());
    return out;
  }
};

TEST(EbpfFsEventDecoder, PwriteWithFdPathRebuiltFromLeafFirstComponents) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(18, 100);
  b.arg(0, 3).arg(1, 0x7fff0000).arg(2, 100).arg(3, 4096);
  b.str(0, FS_STR_FDPATH, std::string("data.bin\0work\0tmp\0", 18));
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->nr, 18);
  EXPECT_EQ(e->pid, 100);
  EXPECT_EQ(e->tid, 101);
  EXPECT_EQ(e->begin_ns, 1000);
  EXPECT_EQ(e->end_ns, 1500);
  EXPECT_EQ(e->rvalue, 100);
  ASSERT_EQ(e->nargs, 4);
  EXPECT_EQ(e->args[0].type, trace::ArgType::kFd);
  EXPECT_EQ(e->args[0].value, 3);
  EXPECT_EQ(strings.get(e->args[0].str), "/tmp/work/data.bin");
  EXPECT_EQ(e->args[1].type, trace::ArgType::kBuf);
  EXPECT_EQ(e->args[1].value, 0);  // buffers are never recorded
  EXPECT_EQ(e->args[2].value, 100);
  EXPECT_EQ(e->args[3].value, 4096);
}

TEST(EbpfFsEventDecoder, Preadv2FlagsComeFromTheRegisterAfterTheOffsetsHighHalf) {
  // The kernel's preadv2(fd, vec, vlen, pos_l, pos_h, flags): strace's 5th argument, the flags,
  // is the 6th register; the 5th (pos_h) is 0 on x86-64.
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(327, 4096);
  b.arg(0, 3).arg(1, 0x7fff0000).arg(2, 1).arg(3, 8192).arg(4, 0).arg(5, 0x8 /* RWF_NOWAIT */);
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  ASSERT_EQ(e->nargs, 5);
  EXPECT_EQ(e->args[3].value, 8192);
  EXPECT_EQ(e->args[4].value, 0x8);
}

TEST(EbpfFsEventDecoder, FdSameReusesThePathCachedForThatTidOnly) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder first(1, 16);  // write(3, ...) with the walked path, marked cached
  first.arg(0, 3).str(0, FS_STR_FDPATH, std::string("null\0dev\0", 9));
  first.ev.fd_cached_mask = 1;
  auto r1 = first.bytes();
  ASSERT_TRUE(decode_fs_event(r1, strings, st).ok());
  RecordBuilder again(1, 16);  // same file: no string, fd_same
  again.arg(0, 3);
  again.ev.fd_same = 1;
  auto r2 = again.bytes();
  auto e = decode_fs_event(r2, strings, st);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(strings.get(e->args[0].str), "/dev/null");
  EXPECT_EQ(st.cache_misses, 0u);
  RecordBuilder other(1, 16);  // another tid never sent a path: a miss, counted, no path
  other.ev.tid = 999;
  other.ev.fd_same = 1;
  auto r3 = other.bytes();
  auto e3 = decode_fs_event(r3, strings, st);
  ASSERT_TRUE(e3.ok());
  EXPECT_EQ(e3->args[0].str, trace::kNoStr);
  EXPECT_EQ(st.cache_misses, 1u);
  // A walked path not marked cached does not replace the cached one.
  RecordBuilder uncached(1, 16);
  uncached.arg(0, 4).str(0, FS_STR_FDPATH, std::string("x\0", 2));
  auto r4 = uncached.bytes();
  ASSERT_TRUE(decode_fs_event(r4, strings, st).ok());
  auto e5 = decode_fs_event(r2, strings, st);
  ASSERT_TRUE(e5.ok());
  EXPECT_EQ(strings.get(e5->args[0].str), "/dev/null");
  // AT_FDCWD has its own slot: caching the cwd does not evict the fd's path.
  RecordBuilder cwd(257, 3);  // openat(AT_FDCWD, "f", ...)
  cwd.arg(0, static_cast<uint64_t>(-100)).str(0, FS_STR_FDPATH, std::string("work\0tmp\0", 9));
  cwd.str(1, FS_STR_PATH, std::string("f\0", 2));
  cwd.ev.fd_cached_mask = 1;
  auto r6 = cwd.bytes();
  auto e6 = decode_fs_event(r6, strings, st);
  ASSERT_TRUE(e6.ok());
  EXPECT_EQ(strings.get(e6->args[0].str), "/tmp/work");
  RecordBuilder cwd_again(257, 4);
  cwd_again.arg(0, static_cast<uint64_t>(-100)).str(1, FS_STR_PATH, std::string("g\0", 2));
  cwd_again.ev.fd_same = 1;
  auto r7 = cwd_again.bytes();
  auto e7 = decode_fs_event(r7, strings, st);
  ASSERT_TRUE(e7.ok());
  EXPECT_EQ(strings.get(e7->args[0].str), "/tmp/work");
  auto e8 = decode_fs_event(r2, strings, st);
  ASSERT_TRUE(e8.ok());
  EXPECT_EQ(strings.get(e8->args[0].str), "/dev/null");
}

TEST(EbpfFsEventDecoder, RenameWithTwoPathsAndNegativeErrno) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(82, -2);
  b.str(0, FS_STR_PATH, std::string("a/old\0", 6)).str(1, FS_STR_PATH, std::string("/abs/new\0", 9));
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->rvalue, -2);
  EXPECT_TRUE(e->failed());
  EXPECT_EQ(strings.get(e->args[0].str), "a/old");
  EXPECT_EQ(strings.get(e->args[1].str), "/abs/new");
}

TEST(EbpfFsEventDecoder, OpenatKeepsAtFdcwdAndZeroComponentsMeanRoot) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(257, 5);
  b.arg(0, static_cast<uint64_t>(-100)).arg(2, 0x241).arg(3, 0644);
  b.str(1, FS_STR_PATH, std::string("f\0", 2));
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->args[0].value, -100);
  EXPECT_EQ(e->args[0].str, trace::kNoStr);  // no cwd string sent in this record
  EXPECT_EQ(e->args[2].value, 0x241);
  EXPECT_EQ(e->args[3].value, 0644);

  RecordBuilder root(81, 0);  // fchdir on an fd of "/": no component above the root
  root.arg(0, 4).str(0, FS_STR_FDPATH, "");
  auto rec2 = root.bytes();
  auto e2 = decode_fs_event(rec2, strings, st);
  ASSERT_TRUE(e2.ok()) << e2.error();
  EXPECT_EQ(strings.get(e2->args[0].str), "/");
}

TEST(EbpfFsEventDecoder, ExitGroupIsCompleteAtEntryButAKilledCallIsUnfinished) {
  trace::StringTable strings;
  DecodeState st;
  DecodeCounters& c = st.counters;
  RecordBuilder b(231, 0);
  b.arg(0, 3);
  b.ev.flags = FS_EV_UNFINISHED;
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->end_ns, e->begin_ns);
  EXPECT_EQ(e->flags & trace::kEventUnfinished, 0u);
  EXPECT_EQ(c.unfinished, 0u);

  RecordBuilder r(0, 0);  // read, killed while blocked
  r.ev.flags = FS_EV_UNFINISHED;
  auto rec2 = r.bytes();
  auto e2 = decode_fs_event(rec2, strings, st);
  ASSERT_TRUE(e2.ok());
  EXPECT_NE(e2->flags & trace::kEventUnfinished, 0u);
  EXPECT_EQ(c.unfinished, 1u);
}

TEST(EbpfFsEventDecoder, PipeFdPairOnlyOnSuccess) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder ok(22, 0);
  ok.arg(0, 3u | (4ull << 32));
  auto rec = ok.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->args[0].value, static_cast<int64_t>(3u | (4ull << 32)));
  RecordBuilder bad(22, -24);
  bad.arg(0, 0x7fff1234);  // the pointer, not a pair
  auto rec2 = bad.bytes();
  auto e2 = decode_fs_event(rec2, strings, st);
  ASSERT_TRUE(e2.ok());
  EXPECT_EQ(e2->args[0].value, 0);
}

TEST(EbpfFsEventDecoder, FcntlLockStructFieldsBecomeTheLockForm) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder lock(72, -11);  // fcntl(3, F_SETLK, {F_WRLCK, SEEK_END, -96, 96}) = -EAGAIN
  lock.arg(0, 3).arg(1, 6).arg(2, 1).arg(3, 2).arg(4, static_cast<uint64_t>(-96)).arg(5, 96);
  lock.ev.flags = FS_EV_LOCK_ARGS;
  auto rec = lock.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  ASSERT_TRUE(trace::has_lock_fields(*e));
  const trace::LockFields f = trace::lock_fields(*e);
  EXPECT_EQ(f.type, 1);     // F_WRLCK
  EXPECT_EQ(f.whence, 2);   // SEEK_END
  EXPECT_EQ(f.start, -96);
  EXPECT_EQ(f.len, 96);
  EXPECT_EQ(e->rvalue, -11);
  // The kernel could not read the struct: the address stays, 3 arguments.
  RecordBuilder unread(72, 0);
  unread.arg(0, 3).arg(1, 7).arg(2, 0x7ffd0000);
  auto rec2 = unread.bytes();
  auto e2 = decode_fs_event(rec2, strings, st);
  ASSERT_TRUE(e2.ok());
  EXPECT_EQ(e2->nargs, 3);
  EXPECT_TRUE(trace::is_lock_call(*e2));
  EXPECT_FALSE(trace::has_lock_fields(*e2));
  // Not a lock command: the flag cannot turn F_SETFL's argument into a struct.
  RecordBuilder setfl(72, 0);
  setfl.arg(0, 3).arg(1, 4).arg(2, 04000);
  setfl.ev.flags = FS_EV_LOCK_ARGS;
  auto rec3 = setfl.bytes();
  auto e3 = decode_fs_event(rec3, strings, st);
  ASSERT_TRUE(e3.ok());
  EXPECT_EQ(e3->nargs, 3);
  EXPECT_EQ(e3->args[2].value, 04000);
}

TEST(EbpfFsEventDecoder, UnknownSyscallKeepsRawRegistersAndName) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(500, 1234);  // beyond the table (its last row is 469)
  b.arg(0, 7);
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->nr, 500);
  EXPECT_EQ(strings.get(e->name), "syscall_500");
  EXPECT_EQ(e->nargs, 6);
  EXPECT_EQ(e->args[0].value, 7);
}

TEST(EbpfFsEventDecoder, OffCpuTimeAndSwitchesBecomeEventColumns) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(0, 10);  // read(3, buf, 10) that blocked twice and was preempted once
  b.arg(0, 3).arg(2, 10);
  b.ev.offcpu_ns = 123456789;
  b.ev.vol_switches = 2;
  b.ev.invol_switches = 1;
  b.ev.gap_offcpu_ns = 5550000;  // and was off-CPU 5.55 ms since its previous recorded call
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_TRUE(e->flags & trace::kEventOffCpu);
  EXPECT_EQ(e->offcpu_ns, 123456789);
  EXPECT_EQ(e->vol_switches, 2u);
  EXPECT_EQ(e->invol_switches, 1u);
  EXPECT_EQ(e->gap_offcpu_ns, 5550000);
}

TEST(EbpfFsEventDecoder, IoUringReadBecomesAPread64RequestLinkedToItsEnter) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(17, 4096);  // IORING_OP_READ of 4096 bytes at offset 8192 on fd 5
  b.arg(0, 5).arg(1, 0x7f0000001000).arg(2, 4096).arg(3, 8192);
  b.str(0, FS_STR_FDPATH, std::string("f.dat\0tmp\0", 10));
  b.ev.flags = FS_EV_URING;
  b.ev.uring_opcode = 22;
  b.ev.uring_user_data = 0xfeed;
  b.ev.uring_enter_ns = 900;
  b.ev.offcpu_ns = 77;  // meaningless for an asynchronous request: not reported
  b.ev.gap_offcpu_ns = 78;
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_TRUE(e->flags & trace::kEventUring);
  EXPECT_FALSE(e->flags & trace::kEventOffCpu);
  EXPECT_EQ(e->offcpu_ns, 0);
  EXPECT_EQ(e->gap_offcpu_ns, 0);
  EXPECT_EQ(e->uring_user_data, 0xfeedu);
  EXPECT_EQ(e->uring_enter_ns, 900);
  ASSERT_EQ(e->nargs, 4);
  EXPECT_EQ(e->args[0].type, trace::ArgType::kFd);
  EXPECT_EQ(e->args[0].value, 5);
  EXPECT_EQ(strings.get(e->args[0].str), "/tmp/f.dat");
  EXPECT_EQ(e->args[2].value, 4096);
  EXPECT_EQ(e->args[3].type, trace::ArgType::kOffset);
  EXPECT_EQ(e->args[3].value, 8192);
  EXPECT_TRUE(st.cached_fd_path.empty()) << "a request must not touch the tid's fd-path cache";
}

TEST(EbpfFsEventDecoder, IoUringOpcodeWithoutAnEquivalentCallKeepsItsNumberAndFd) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(-1, 0);
  b.arg(0, 7);
  b.ev.flags = FS_EV_URING;
  b.ev.uring_opcode = 46;
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->nr, -1);
  EXPECT_EQ(strings.get(e->name), "io_uring_op_46");
  ASSERT_EQ(e->nargs, 1);
  EXPECT_EQ(e->args[0].value, 7);
}

TEST(EbpfFsEventDecoder, FlagsAreCounted) {
  trace::StringTable strings;
  DecodeState st;
  DecodeCounters& c = st.counters;
  RecordBuilder b(2, -14);
  b.ev.flags = FS_EV_STR_UNREADABLE | FS_EV_STR_TRUNCATED | FS_EV_FDPATH_UNKNOWN | FS_EV_FDPATH_TRUNCATED;
  auto rec = b.bytes();
  ASSERT_TRUE(decode_fs_event(rec, strings, st).ok());
  EXPECT_EQ(c.unreadable_strings, 1u);
  EXPECT_EQ(c.truncated_strings, 1u);
  EXPECT_EQ(c.unknown_fd_paths, 1u);
  EXPECT_EQ(c.truncated_fd_paths, 1u);
}

TEST(EbpfFsEventDecoder, MalformedRecordsAreRejectedWithTheReason) {
  trace::StringTable strings;
  DecodeState st;
  std::vector<std::byte> tiny(10);
  auto e = decode_fs_event(tiny, strings, st);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("shorter than"), std::string::npos);

  RecordBuilder b(87, 0);
  b.str(0, FS_STR_PATH, std::string("x\0", 2));
  auto rec = b.bytes();
  rec.pop_back();  // str_bytes now overruns the record
  e = decode_fs_event(rec, strings, st);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("overruns"), std::string::npos);

  RecordBuilder bad_arg(87, 0);  // unlink has one argument
  bad_arg.str(3, FS_STR_PATH, std::string("x\0", 2));
  auto rec2 = bad_arg.bytes();
  e = decode_fs_event(rec2, strings, st);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("argument 3"), std::string::npos);
}

// A page fault on a file mapping: the pseudo-call mm_fault with the file, the page's offset,
// one page, how it faulted and where; the next fault of the tid on the same file carries no
// string and names the same file.
TEST(EbpfFsEventDecoder, PageFaultBecomesMmFaultAndTheNextOneReusesTheTidsFile) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(-1, 0);
  b.arg(0, 0x7f0000003123).arg(1, 3 * 4096).arg(2, 4096).arg(3, FS_FAULT_WRITE | FS_FAULT_SHARED);
  b.str(0, FS_STR_FDPATH, std::string("pack.idx\0objects\0repo\0", 22));
  b.ev.flags = FS_EV_FAULT;
  b.ev.end_ns = b.ev.begin_ns;
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->flags, trace::kEventPageFault);  // no off-CPU columns: a fault has no end here
  EXPECT_EQ(e->nr, -1);
  EXPECT_EQ(trace::function_name(*e, strings), "mm_fault");
  ASSERT_EQ(e->nargs, trace::kFaultArgs);
  EXPECT_EQ(e->args[trace::kFaultArgFile].type, trace::ArgType::kPath);
  EXPECT_EQ(strings.get(e->args[trace::kFaultArgFile].str), "/repo/objects/pack.idx");
  EXPECT_EQ(e->args[trace::kFaultArgOffset].value, 3 * 4096);
  EXPECT_EQ(e->args[trace::kFaultArgLength].value, 4096);
  EXPECT_EQ(e->args[trace::kFaultArgHow].value, trace::kFaultWrite | trace::kFaultShared);
  EXPECT_EQ(e->args[trace::kFaultArgAddress].type, trace::ArgType::kPtr);
  EXPECT_EQ(e->args[trace::kFaultArgAddress].value, 0x7f0000003123);
  EXPECT_EQ(e->pid, 100);
  EXPECT_EQ(e->tid, 101);

  RecordBuilder around(-1, 0);  // the fault-around range of the same fault: no string
  around.arg(0, 0x7f0000000000).arg(1, 0).arg(2, 16 * 4096).arg(3, FS_FAULT_SHARED | FS_FAULT_AROUND);
  around.ev.flags = FS_EV_FAULT | FS_EV_FAULT_SAME_FILE;
  auto rec2 = around.bytes();
  auto a = decode_fs_event(rec2, strings, st);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(trace::function_name(*a, strings), "mm_fault_around");
  EXPECT_EQ(strings.get(a->args[trace::kFaultArgFile].str), "/repo/objects/pack.idx");
  EXPECT_EQ(a->args[trace::kFaultArgLength].value, 16 * 4096);
  EXPECT_EQ(st.faults, 1u);
  EXPECT_EQ(st.fault_arounds, 1u);
  EXPECT_EQ(st.cache_misses, 0u);
  EXPECT_TRUE(st.cached_fd_path.empty()) << "a fault must not touch the tid's fd-path cache";

  around.ev.tid = 999;  // "same file" for a tid that never named one: counted, never invented
  auto rec3 = around.bytes();
  auto m = decode_fs_event(rec3, strings, st);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->args[trace::kFaultArgFile].str, trace::kNoStr);
  EXPECT_EQ(st.cache_misses, 1u);
}

TEST(EbpfFsEventDecoder, MalformedFaultRecordsAreRejectedNamingWhy) {
  trace::StringTable strings;
  DecodeState st;
  RecordBuilder b(-1, 0);
  b.ev.flags = FS_EV_FAULT;
  b.str(2, FS_STR_FDPATH, std::string("f\0", 2));  // a string for another argument than the file
  auto rec = b.bytes();
  auto e = decode_fs_event(rec, strings, st);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().find("fault record"), std::string::npos) << e.error();
  RecordBuilder two(-1, 0);
  two.ev.flags = FS_EV_FAULT;
  two.str(0, FS_STR_FDPATH, std::string("f\0", 2)).str(0, FS_STR_FDPATH, std::string("g\0", 2));
  auto rec2 = two.bytes();
  EXPECT_FALSE(decode_fs_event(rec2, strings, st).ok());
}

}  // namespace
}  // namespace rastro::capture::ebpf
