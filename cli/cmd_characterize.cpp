// `rastro characterize TRACE [-o model.json] [--report DIR] [--method kmeans|gmm] [-k N]
//  [--validate SYNTHETIC [--replays N]]`: the workload model of a trace (characterize/), and with --validate
// the comparison of a synthetic trace drawn from it (exit status 3 when a feature is outside its
// tolerance); --replays also compares replayed response times (characterize/response_comparison.h).
#include <memory>

#include <fmt/format.h>

#include "characterize/characterize_report.h"
#include "characterize/model_validation.h"
#include "characterize/response_comparison.h"
#include "characterize/workload_characterizer.h"
#include "cli/command.h"
#include "common/error.h"
#include "trace/io/trace_io.h"

namespace {

namespace ch = rastro::characterize;

struct CharacterizeFlags {
  std::string trace, model, report, method = "kmeans", validate;
  size_t replays = 0;
  size_t k = 0, max_k = 8;
};

rastro::cli::RegisterCommand register_characterize{
    {"characterize",
     "Workload model of a trace: per-thread/file features, classes by clustering (k-means or GMM), "
     "JSON model, Markdown/HTML report with plots; --validate checks a synthetic trace against it",
     45, [](CLI::App& app) {
       auto o = std::make_shared<CharacterizeFlags>();
       app.add_option("TRACE", o->trace, "Trace file (.rastro, .tsv or .csv)")->required();
       app.add_option("-o,--output", o->model, "Write the model as JSON (docs/characterize.md)");
       app.add_option("--report", o->report, "Write characterize.md, characterize.html and SVG plots into this directory");
       app.add_option("--method", o->method, "Clustering: kmeans (silhouette) or gmm (diagonal GMM, BIC)")
           ->check(CLI::IsMember({"kmeans", "gmm"}))
           ->capture_default_str();
       app.add_option("-k,--classes", o->k, "Number of thread classes (0: chosen automatically)")->capture_default_str();
       app.add_option("--max-classes", o->max_k, "Largest k tried when choosing automatically")
           ->check(CLI::Range(1, 64))
           ->capture_default_str();
       app.add_option("--validate", o->validate,
                      "A trace written by `rastro synth` from this trace's model: compare its features with the model");
       app.add_option("--replays", o->replays,
                      "With --validate: also replay the original and the synthetic trace N times each (alternately) "
                      "and compare their response times per operation category, with 95 % intervals")
           ->check(CLI::Range(0, 100));
       app.callback([o] {
         rastro::trace::ReadReport rep;
         rastro::trace::Trace t = rastro::trace::read_trace(o->trace, &rep);
         if (!rep.intact)
           fmt::print(stderr, "rastro characterize: {}: only the intact prefix ({} events): {}\n", o->trace,
                      t.events.size(), rep.problem);
         if (t.events.empty()) throw rastro::Error(fmt::format("{}: the trace has no events to characterize", o->trace));
         ch::CharacterizeOptions opts;
         opts.method = o->method == "gmm" ? ch::ClusterMethod::kGmm : ch::ClusterMethod::kKmeans;
         opts.k = o->k;
         opts.max_k = o->max_k;
         ch::Characterization c = ch::characterize(t, o->trace, opts);
         std::unique_ptr<ch::ValidationReport> v;
         if (!o->validate.empty()) {
           rastro::trace::Trace s = rastro::trace::read_trace(o->validate);
           v = std::make_unique<ch::ValidationReport>(ch::validate_synthetic(c.model, s));
         }
         if (!o->model.empty()) ch::write_model(o->model, c.model);
         if (!o->report.empty()) {
           ch::ReportFiles f = ch::write_report(o->report, c, v.get());
           fmt::print("report: {} and {}\n", f.markdown, f.html);
         }
         fmt::print("{}: {} threads, {} calls, {} files -> {} classes ({} {} = {:.3f})\n", o->trace, c.model.threads,
                    c.model.calls, c.model.files, c.model.clustering.k, c.model.clustering.method,
                    c.model.clustering.score_name, c.model.clustering.score);
         for (const ch::ClassModel& k : c.model.classes)
           fmt::print("  {}: {} threads ({:.1f} %), {:.1f} % of calls, read {:.3f} write {:.3f} meta {:.3f}\n", k.name,
                      k.threads, 100 * k.share, 100 * k.call_share, k.mix[0], k.mix[1],
                      k.mix[static_cast<size_t>(ch::OpCategory::kMeta)]);
         if (v) {
           fmt::print("\n{}", ch::validation_markdown(*v));
           if (!v->pass()) rastro::cli::set_exit_code(3);
         }
         if (o->replays > 0) {
           if (o->validate.empty()) throw rastro::Error("--replays compares replays of the original and --validate's trace");
           if (o->replays < 2) throw rastro::Error("--replays: at least 2 replays of each trace give an interval");
           ch::ResponseComparison rc = ch::compare_by_replay(o->trace, o->validate, o->replays);
           fmt::print("\n{}", ch::response_markdown(rc));
         }
         if (!rep.intact && !(v && !v->pass())) rastro::cli::set_exit_code(2);
       });
     }}};

}  // namespace
