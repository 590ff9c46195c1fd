# rastro_component(NAME DEPS...): a static library from every .cpp below the component folder
# (one concept per file; adding a file needs no CMake edit). Tests and .bpf.c files are excluded.
function(rastro_component name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER srcs EXCLUDE REGEX "_test\\.cpp$")
  add_library(rastro_${name} STATIC ${srcs})
  target_include_directories(rastro_${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(rastro_${name} PUBLIC ${ARGN} fmt::fmt nlohmann_json::nlohmann_json Threads::Threads)
  rastro_precompile_headers(rastro_${name} LIBRARY)
endfunction()

# Precompiled headers: nlohmann/json, fmt and the standard library are parsed by most of the
# ~420 translation units; CI builds the project three times on two cores, so they are parsed once
# per kind of target: the first library (or test) of a build makes the header, every later one of
# its kind reuses it (REUSE_FROM). The two kinds differ in flags (tests are -O0 and add GoogleTest),
# and GCC takes a precompiled header only with the flags it was made with. One per target was 27
# copies of 113-136 MB, 3.4 GB of a 3.8 GB build directory: CI, with three, ran out of disk.
set(RASTRO_PCH_HEADERS
    <algorithm> <array> <chrono> <cstdint> <filesystem> <fstream> <functional> <map> <memory>
    <optional> <set> <sstream> <string> <string_view> <unordered_map> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)
# rastro_precompile_headers(TARGET KIND [HEADERS...]): KIND is LIBRARY or TEST; HEADERS, added by
# the first target of a kind, are the kind's own.
function(rastro_precompile_headers target kind)
  get_property(donor GLOBAL PROPERTY RASTRO_PCH_OF_${kind})
  if(donor)
    target_precompile_headers(${target} REUSE_FROM ${donor})
  else()
    target_precompile_headers(${target} PRIVATE ${RASTRO_PCH_HEADERS} ${ARGN})
    set_property(GLOBAL PROPERTY RASTRO_PCH_OF_${kind} ${target})
  endif()
endfunction()
