// A campaign's run directories set aside instead of deleted before the next run
// (campaign/deferred_deletion.h): nothing is deleted until the trash holds more than its budget,
// then everything is, and the next run waits until those inodes are settle seconds old; the end
// of the campaign empties it; nothing outside what was discarded is touched.
#include "campaign/deferred_deletion.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace rastro::campaign {
namespace {

struct Dir {
  fs::path path = fs::temp_directory_path() / ("rastro-trash-" + std::to_string(getpid()));
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
};

void make_run(const fs::path& dir, int files, size_t bytes_each) {
  fs::create_directories(dir / "sub");
  for (int i = 0; i < files; ++i) std::ofstream(dir / "sub" / std::to_string(i)) << std::string(bytes_each, 'x');
}

// A fake clock: sleeping moves it on, and every sleep is kept.
struct FakeTime {
  DeferredDeletion::Clock::time_point t{};
  std::vector<DeferredDeletion::Clock::duration> slept;
  DeferredDeletion::Options options(uint64_t budget, bool settle_needed = true) {
    DeferredDeletion::Options o;
    o.budget_bytes = budget;
    o.settle_needed = settle_needed;
    o.sleep = [this](DeferredDeletion::Clock::duration d) {
      slept.push_back(d);
      t += d;
    };
    o.now = [this] { return t; };
    return o;
  }
};

TEST(DeferredDeletion, RunsAreSetAsideUntilTheBudgetThenTheNextRunWaitsForTheFreedInodes) {
  Dir d;
  FakeTime clock;
  const fs::path keep = d.path / "results.csv";
  std::ofstream(keep) << "kept";
  {
    DeferredDeletion trash((d.path / ".trash").string(), clock.options(25'000));
    make_run(d.path / "run-a", 10, 1000);  // 10 kB
    trash.discard((d.path / "run-a").string());
    EXPECT_FALSE(fs::exists(d.path / "run-a"));
    EXPECT_EQ(trash.held_bytes(), 10'000u);
    EXPECT_EQ(trash.emptyings(), 0);
    EXPECT_FALSE(fs::is_empty(d.path / ".trash")) << "set aside, not deleted";
    trash.before_run();
    EXPECT_TRUE(clock.slept.empty()) << "nothing was deleted: no wait";

    make_run(d.path / "run-b", 10, 1000);
    trash.discard((d.path / "run-b").string());
    EXPECT_EQ(trash.held_bytes(), 20'000u);
    make_run(d.path / "run-c", 10, 1000);  // over 25 kB: emptied
    trash.discard((d.path / "run-c").string());
    EXPECT_EQ(trash.emptyings(), 1);
    EXPECT_EQ(trash.held_bytes(), 0u);
    EXPECT_TRUE(fs::is_empty(d.path / ".trash"));

    clock.t += std::chrono::seconds(20);  // 20 s of the next run's set-up
    trash.before_run();
    ASSERT_EQ(clock.slept.size(), 1u);
    EXPECT_EQ(clock.slept[0], std::chrono::seconds(41)) << "61 s after the emptying";
    trash.before_run();
    EXPECT_EQ(clock.slept.size(), 1u) << "already waited out";
    trash.discard((d.path / "missing").string());  // nothing there: nothing happens
    make_run(d.path / "run-d", 1, 10);
    trash.discard((d.path / "run-d").string());
    EXPECT_FALSE(fs::is_empty(d.path / ".trash"));
  }
  EXPECT_FALSE(fs::exists(d.path / ".trash")) << "the end of the campaign empties it";
  EXPECT_TRUE(fs::exists(keep));
}

TEST(DeferredDeletion, NoWaitWhereFreedInodesCostNothingAndAnInterruptedTrashIsEmptiedFirst) {
  Dir d;
  FakeTime clock;
  make_run(d.path / ".trash" / "7", 3, 100);  // an interrupted campaign's
  DeferredDeletion journaled((d.path / ".trash").string(), clock.options(10, false));
  EXPECT_EQ(journaled.emptyings(), 1);
  EXPECT_TRUE(fs::is_empty(d.path / ".trash"));
  make_run(d.path / "run", 3, 100);
  journaled.discard((d.path / "run").string());
  EXPECT_EQ(journaled.emptyings(), 2);
  journaled.before_run();
  EXPECT_TRUE(clock.slept.empty());
}

}  // namespace
}  // namespace rastro::campaign
