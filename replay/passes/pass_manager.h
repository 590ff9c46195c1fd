// A pass manager in the manner of bpftrace's src/ast/pass_manager.h: a pass is a named value
// that declares what it reads and what it produces; add() refuses a pass whose inputs no earlier
// pass produced (a programming error, so it throws std::logic_error), and run() stops at the
// first pass that fails.
#pragma once

#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.h"
#include "replay/passes/infer_context.h"

namespace rastro::replay {

struct Done {};

struct Pass {
  std::string name;
  std::vector<std::string> reads;
  std::vector<std::string> produces;
  std::function<Result<Done>(InferContext&)> run;
};

class PassManager {
 public:
  // "trace" and "options" are given by the caller.
  PassManager() : available_{"trace", "options"} {}

  PassManager& add(Pass pass) {
    for (const auto& in : pass.reads)
      if (!available_.count(in))
        throw std::logic_error("pass '" + pass.name + "' reads '" + in + "' which no earlier pass produces");
    for (const auto& out : pass.produces) available_.insert(out);
    passes_.push_back(std::move(pass));
    return *this;
  }

  // Runs the passes in order; `after` (if set) is called after each successful pass (for
  // --dump-after style debugging).
  Result<Done> run(InferContext& ctx,
                   const std::function<void(const std::string&, const InferContext&)>& after = {}) const {
    for (const auto& p : passes_) {
      auto r = p.run(ctx);
      if (!r.ok()) return fail(p.name + ": " + r.error());
      if (after) after(p.name, ctx);
    }
    return Done{};
  }

  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& p : passes_) n.push_back(p.name);
    return n;
  }

 private:
  std::set<std::string> available_;
  std::vector<Pass> passes_;
};

}  // namespace rastro::replay
