# What SMART changes in the CMake builds of llama.cpp and whisper.cpp (and of the ggml each
# vendors), which llama-cpp-sys-2 and whisper-rs-sys run from their build scripts.
#
# .cargo/config.toml hands this file to every build as CMAKE_PROJECT_INCLUDE (both build scripts
# pass CMAKE_* variables on to CMake), so CMake includes it at the end of every project() call:
# once for llama.cpp or whisper.cpp, once for its ggml. Each change is a file of its own that
# checks which project and platform it is for.
include("${CMAKE_CURRENT_LIST_DIR}/llama_without_common.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/ggml_lib_prefix.cmake")
