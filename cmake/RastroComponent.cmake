# rastro_component(NAME DEPS...): a static library from every .cpp below the component folder
# (one concept per file; adding a file needs no CMake edit). Tests and .bpf.c files are excluded.
function(rastro_component name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  list(FILTER srcs EXCLUDE REGEX "_test\\.cpp$")
  add_library(rastro_${name} STATIC ${srcs})
  target_include_directories(rastro_${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(rastro_${name} PUBLIC ${ARGN} fmt::fmt nlohmann_json::nlohmann_json Threads::Threads)
endfunction()
