// `rastro env [--json] [--path P]`: the environment inventory (SPEC §6.4) a capture, replay or
// experiment records, for the file system holding P (default: the current directory).
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/env_inventory.h"

namespace {

void print_flat(const nlohmann::json& j, const std::string& prefix) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      print_flat(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key());
    return;
  }
  fmt::print("{:<28} {}\n", prefix, j.is_string() ? j.get<std::string>() : j.dump());
}

rastro::cli::RegisterCommand register_env{{"env", "Show the environment inventory recorded with every measurement", 50,
                                  [](CLI::App& app) {
                                    auto json = std::make_shared<bool>(false);
                                    auto path = std::make_shared<std::string>(".");
                                    app.add_flag("--json", *json, "Print JSON");
                                    app.add_option("--path", *path, "Target path whose file system is described")
                                        ->capture_default_str();
                                    app.callback([json, path] {
                                      nlohmann::json env = rastro::collect_environment(*path);
                                      if (*json)
                                        fmt::print("{}\n", env.dump(2));
                                      else
                                        print_flat(env, "");
                                    });
                                  }}};

}  // namespace
