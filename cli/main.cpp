// rastro: file-system trace capture, replay and the metrology of both.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"

namespace rastro::cli {

std::vector<Command>& registered_commands() {
  static std::vector<Command> commands;
  return commands;
}

namespace {
int g_exit_code = 0;
}
void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }

}  // namespace rastro::cli

int main(int argc, char** argv) {
  using namespace rastro::cli;
  CLI::App app{
      "rastro: capture file-system syscall traces with several instruments (strace, ptrace, eBPF, "
      "SystemTap), replay them (event-based or compiled) under chosen orderings and timing, and "
      "measure how far each number can be trusted (precision, bias, calibration, uncertainty).",
      "rastro"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rastro 0.1.0");
  auto commands = registered_commands();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const Command& a, const Command& b) { return a.order < b.order; });
  for (auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const rastro::Error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "rastro: error: {}\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "rastro: internal error: {}\n", e.what());
    return 70;
  }
  return exit_code();
}
