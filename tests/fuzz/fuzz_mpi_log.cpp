// libFuzzer target: the MPI rank log reader, then the fold into a rank trace and a one-rank merge
// (tests/fuzz/corpus/mpi_log). The merge reads back what the fold wrote into the header.
#include <string>
#include "mpi/job_merge.h"
#include "mpi/mpi_log.h"
#include "mpi/rank_fold.h"
#include "tests/fuzz/fuzz_error_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  RASTRO_FUZZ_EXPECTED_ERRORS({
    rastro::mpi::RankLog log = rastro::mpi::parse_rank_log(text, "fuzz.log");
    rastro::trace::Trace t;
    rastro::mpi::fold_rank_log(t, log, {});
    for (size_t i = 1; i < t.events.size(); ++i)
      if (t.events[i - 1].begin_ns > t.events[i].begin_ns) std::abort();  // fold must sort
    std::vector<rastro::trace::Trace> ranks{t};
    (void)rastro::mpi::merge_ranks(std::move(ranks), {"fuzz.rastro"}, nullptr);
  })
  return 0;
}
