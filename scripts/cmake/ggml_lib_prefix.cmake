# Gives ggml's static archives back their "lib" prefix when llama.cpp or whisper.cpp is built
# for Windows with MinGW (scripts/cmake/project_include.cmake includes it; see there).
#
# ggml's CMakeLists drops the prefix on every Windows build, so MinGW writes `ggml.a`,
# `ggml-base.a`, `ggml-cpu.a`. Both Rust crates then ask for the archives the Unix way:
# llama-cpp-sys-2 links whatever matches `lib*.a` (and so none of ggml), whisper-rs-sys asks
# rustc for `static=ggml`, which looks for `libggml.a` (or `ggml.lib`) and stops. The target
# property wins over ggml's variable, so setting it once every target exists — deferred to the
# end of the top-level directory — makes the names what both crates look for.
function(smart_ggml_lib_prefix)
  foreach(target ggml ggml-base ggml-cpu)
    if(TARGET ${target})
      set_target_properties(${target} PROPERTIES PREFIX "lib")
    endif()
  endforeach()
endfunction()

if(WIN32 AND MINGW AND NOT SMART_GGML_LIB_PREFIX_DEFERRED)
  set(SMART_GGML_LIB_PREFIX_DEFERRED TRUE)
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL smart_ggml_lib_prefix)
endif()
