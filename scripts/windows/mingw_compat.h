/* Declarations newer Windows SDKs have and Debian 12's MinGW-w64 headers (version 10) lack,
 * forced into every C and C++ file cross-built for Windows (scripts/windows-test.sh adds
 * `-include` of this file to the target's CFLAGS and CXXFLAGS).
 *
 * llama.cpp's CPU backend (ggml-cpu.c) turns off Windows 11's power throttling for its worker
 * threads with SetThreadInformation(ThreadPowerThrottling, THREAD_POWER_THROTTLING_STATE):
 * version 10 of the headers declares the function and the information class but not the
 * structure or its constants (version 11 does). The layout is the SDK's, from processthreadsapi.h:
 * three ULONGs (32-bit on Windows). Only <_mingw.h> is included, for the version: pulling in
 * <windows.h> ahead of every file would define min/max before a file could ask for NOMINMAX.
 * Assembly sources built with the same flags (blake3's) get nothing.
 */
#if !defined(SMART_MINGW_COMPAT_H) && !defined(__ASSEMBLER__)
#define SMART_MINGW_COMPAT_H
#include <_mingw.h>
#if defined(__MINGW64_VERSION_MAJOR) && __MINGW64_VERSION_MAJOR < 11 && !defined(THREAD_POWER_THROTTLING_CURRENT_VERSION)
#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
#define THREAD_POWER_THROTTLING_VALID_FLAGS (THREAD_POWER_THROTTLING_EXECUTION_SPEED)
typedef struct _THREAD_POWER_THROTTLING_STATE {
  unsigned long Version;
  unsigned long ControlMask;
  unsigned long StateMask;
} THREAD_POWER_THROTTLING_STATE;
#endif
#endif
