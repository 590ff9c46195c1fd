# rastro_component(NAME DEPS...): a static library from every .cpp below the component folder
# (one concept per file; adding a file needs no CMake edit). Tests and .bpf.c files are excluded.
function(rastro_component name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER srcs EXCLUDE REGEX "_test\\.cpp$")
  add_library(rastro_${name} STATIC ${srcs})
  target_include_directories(rastro_${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(rastro_${name} PUBLIC ${ARGN} fmt::fmt nlohmann_json::nlohmann_json Threads::Threads)
  rastro_precompile_headers(rastro_${name})
endfunction()

# Precompiled headers: nlohmann/json, fmt and the standard library are parsed by most of the
# ~420 translation units; CI builds the project three times on two cores, so each target parses
# them once (libraries and tests are C++ only; the C workloads are separate targets).
set(RASTRO_PCH_HEADERS
    <algorithm> <array> <chrono> <cstdint> <filesystem> <fstream> <functional> <map> <memory>
    <optional> <set> <sstream> <string> <string_view> <unordered_map> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)
function(rastro_precompile_headers target)
  target_precompile_headers(${target} PRIVATE ${RASTRO_PCH_HEADERS} ${ARGN})
endfunction()
