// `rastro synth MODEL.json [--scale threads=N,duration=S] [--seed N] -o synthetic.rastro
//  [--fio JOB.fio] [--filebench WORKLOAD.f]`: a synthetic trace drawn from a workload model
// (characterize/), replayable with `rastro replay --init`, and the same model as a fio job file
// and as a Filebench workload.
#include <memory>

#include <fmt/format.h>

#include "characterize/filebench_workload_writer.h"
#include "characterize/fio_job_writer.h"
#include "characterize/workload_model.h"
#include "characterize/workload_synthesizer.h"
#include "cli/command.h"
#include "common/error.h"
#include "trace/io/trace_io.h"

namespace {

namespace ch = rastro::characterize;

struct SynthFlags {
  std::string model, out, scale, fio, filebench;
  uint64_t seed = 1;
};

rastro::cli::RegisterCommand register_synth{
    {"synth",
     "Draw a synthetic trace from a workload model (`rastro characterize -o`), optionally scaled to N threads or S "
     "seconds; replayable with `rastro replay --init`; --fio / --filebench write the model as a fio job / Filebench "
     "workload",
     46, [](CLI::App& app) {
       auto o = std::make_shared<SynthFlags>();
       app.add_option("MODEL", o->model, "Workload model JSON written by `rastro characterize -o`")->required();
       app.add_option("-o,--output", o->out, "Synthetic trace (.rastro, .tsv or .csv)");
       app.add_option("--scale", o->scale, "threads=N (total threads), duration=S (seconds per thread), comma-separated");
       app.add_option("--seed", o->seed, "Random seed (same seed, same trace)")->capture_default_str();
       app.add_option("--fio", o->fio, "Write a fio job file running the model's classes");
       app.add_option("--filebench", o->filebench,
                      "Write a Filebench workload (.f): per class a fileset and a thread cycle of its sessions");
       app.callback([o] {
         if (o->out.empty() && o->fio.empty() && o->filebench.empty())
           throw rastro::Error("nothing to write: give -o TRACE, --fio JOB and/or --filebench WORKLOAD");
         ch::WorkloadModel m = ch::read_model(o->model);
         ch::SynthOptions so;
         so.seed = o->seed;
         if (!o->scale.empty()) ch::parse_scale(o->scale, so);
         if (!o->out.empty()) {
           rastro::trace::Trace t = ch::synthesize(m, so);
           t.header.command = {"rastro", "synth", o->model};
           rastro::trace::write_trace(o->out, t);
           fmt::print("{}: {} events, {} threads\n", o->out, t.events.size(), so.threads.value_or(m.threads));
         }
         if (!o->fio.empty()) {
           ch::write_fio_job(o->fio, m, so);
           fmt::print("{}: fio job, {} classes\n", o->fio, m.classes.size());
         }
         if (!o->filebench.empty()) {
           ch::write_filebench_workload(o->filebench, m, so);
           fmt::print("{}: Filebench workload, {} classes\n", o->filebench, m.classes.size());
         }
       });
     }}};

}  // namespace
