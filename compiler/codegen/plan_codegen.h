// The compiler's last pass (STYLE.md: codegen takes only a finished Plan): writes a self-contained
// C++ program into a directory — the trace as static data tables, one straight-line function per
// traced thread with its dependency waits, a main() — and the CMakeLists.txt that builds it against
// rastro's runtime libraries.
#pragma once

#include <string>

#include "replay/plan/plan.h"

namespace rastro::compiler {

struct CodegenOptions {
  std::string timing = "fullspeed";  // baked into the program
  std::string source;                // the trace file, for messages
  size_t chunk = 20000;              // table rows / statements per translation unit
};

struct CodegenReport {
  size_t files = 0;
  size_t requests = 0;
  size_t threads = 0;
};

CodegenReport generate_program(const replay::Plan& plan, const CodegenOptions& options, const std::string& dir);

struct BuildOptions {
  std::string cxx = "c++";
  std::string opt = "-O2";
  bool verbose = false;
};
// Configures and builds DIR/replay with CMake; throws rastro::Error with the compiler's output.
void build_program(const std::string& dir, const BuildOptions& options);

}  // namespace rastro::compiler
