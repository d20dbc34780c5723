# llama.cpp without its "common" library: a third of the time its build took, for code SMART
# never links.
#
# llama-cpp-sys-2 turns on its `common` feature by default, and llama-cpp-2 asks for the sys
# crate with default features, so llama.cpp's CMake is always told LLAMA_BUILD_COMMON=ON: the
# chat-template parsers, jinja, the argument parser, the model downloader and the vendored
# cpp-httplib they need: 54 of the 129 files its build compiled. Rebuilt alone on two cores, the
# library took 444 s with them and 274 s without; a cold CI run's Linux and Windows builds each
# got about 5 minutes shorter. The proposer worker asks for llama-cpp-2 without default
# features, so the Rust side is compiled without `common` and calls nothing of it (its grammar
# sampler is libllama's own); the wrapper the sys crate still compiles for it is an archive
# member nothing references, which the linker leaves out.
#
# Set after project() and before llama.cpp's option() reads it, the cached value wins over the
# build script's -D. The sys crate's build script then notes that it found no common library (a
# warning cargo shows for a registry crate only with -vv); that is this file at work.
if(PROJECT_NAME STREQUAL "llama.cpp")
  set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library (SMART links none of it)" FORCE)
endif()
