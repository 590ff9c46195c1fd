// Sub-command registration. Each `rastro X` lives in its own cli/cmd_X.cpp and registers itself
// with a static RegisterCommand; main() adds them in `order`. A command's callback reports
// failure by throwing rastro::Error and may set a specific exit status with set_exit_code().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rastro::cli {

struct Command {
  std::string name;
  std::string description;
  int order = 100;  // position in `rastro --help`
  std::function<void(CLI::App&)> setup;
};

std::vector<Command>& registered_commands();
void set_exit_code(int code);
int exit_code();

struct RegisterCommand {
  explicit RegisterCommand(Command c) { registered_commands().push_back(std::move(c)); }
};

}  // namespace rastro::cli
