#include "mpi/replay/token_mailbox.h"

#include <gtest/gtest.h>

#include "tests/mpi/fake_transport.h"

namespace rastro::mpi {
namespace {

using namespace std::chrono_literals;

using testing::FakeTransport;

TEST(TokenMailbox, TokensForOtherCallsWaitInTheMailbox) {
  FakeTransport t(0, 3);
  TokenMailbox mb(t, 10s);
  t.inbox = {{2, 9}, {1, 5}, {1, 9}};
  EXPECT_FALSE(mb.wait(1, 9));  // arrived already (behind two others)
  EXPECT_FALSE(mb.wait(2, 9));  // kept from the drain: same value, other source
  EXPECT_FALSE(mb.wait(1, 5));
  EXPECT_EQ(mb.received(), 3u);
  EXPECT_EQ(mb.timed_out(), 0u);
}

TEST(TokenMailbox, SendsGoOutTaggedAsTokens) {
  FakeTransport t(0, 3);
  TokenMailbox mb(t, 10s);
  mb.send(2, 77);
  ASSERT_EQ(t.sent.size(), 1u);
  EXPECT_EQ(t.sent[0], std::make_tuple(2, kTagToken, int64_t{77}));
  EXPECT_EQ(mb.sent(), 1u);
}

TEST(TokenMailbox, ATokenThatNeverComesIsGivenUpAfterTheTimeout) {
  FakeTransport t(0, 3);
  TokenMailbox mb(t, 20ms);
  t.inbox = {{1, 4}};
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(mb.wait(1, 5));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 20ms);
  EXPECT_EQ(mb.timed_out(), 1u);
  EXPECT_EQ(mb.received(), 0u);
  EXPECT_FALSE(mb.wait(1, 4));  // the one that did come is still there
}

}  // namespace
}  // namespace rastro::mpi
