#include "workloads/macro/fileserver_options.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::workloads {

void validate(const FileserverOptions& o) {
  if (o.threads < 1) throw Error(fmt::format("--threads {}: needs at least 1 thread", o.threads));
  if (o.threads > 4096) throw Error(fmt::format("--threads {}: at most 4096", o.threads));
  if (o.files < 1) throw Error("--files 0: needs at least 1 file");
  if (o.files > 10'000'000) throw Error(fmt::format("--files {}: at most 10000000", o.files));
  if (!(o.mean_size > 0) || !std::isfinite(o.mean_size)) throw Error("--mean-size must be positive");
  if (!(o.gamma > 0) || !std::isfinite(o.gamma)) throw Error("--gamma (the shape) must be positive");
  if (!(o.append_mean > 0) || !std::isfinite(o.append_mean)) throw Error("--append-mean must be positive");
  if (o.iosize < 1) throw Error("--iosize must be at least 1 byte");
  if (o.iosize > (1ull << 30)) throw Error("--iosize: at most 1G");
  if (o.dirwidth < 1) throw Error("--dirwidth must be at least 1");
  if (o.prealloc_percent < 0 || o.prealloc_percent > 100) throw Error("--prealloc must be 0..100 (percent)");
  if (o.duration_ns <= 0) throw Error("--duration must be positive");
  if (o.max_events < 1) throw Error("--max-events must be at least 1");
  if (o.dir.empty()) throw Error("--dir: empty directory name");
}

nlohmann::json fileserver_settings(const FileserverOptions& o, const std::string& abs_dir) {
  nlohmann::json s;
  s["workload"] = "fileserver";
  s["threads"] = o.threads;
  s["files_count"] = o.files;
  s["mean_size"] = o.mean_size;
  s["gamma"] = o.gamma;
  s["size_distribution"] = fmt::format("gamma(shape={}, scale=mean_size/shape)", o.gamma);
  s["append_mean"] = o.append_mean;
  s["iosize"] = o.iosize;
  s["dirwidth"] = o.dirwidth;
  s["prealloc_percent"] = o.prealloc_percent;
  s["duration_ns"] = o.duration_ns;
  s["seed"] = o.seed;
  s["dir"] = abs_dir;
  s["max_events"] = o.max_events;
  s["flow"] = "createfile writewholefile closefile openfile appendfilerand closefile openfile "
              "readwholefile closefile deletefile statfile";
  return s;
}

}  // namespace rastro::workloads
