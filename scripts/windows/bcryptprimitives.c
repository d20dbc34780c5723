/* The one export of Windows 10's bcryptprimitives.dll that Rust's standard library imports.
 *
 * Rust's std on Windows takes its random bytes (HashMap keys) from ProcessPrng in
 * bcryptprimitives.dll. Wine 8 (Debian 12's) has no such DLL, so every Rust program for
 * x86_64-pc-windows-gnu fails to start under it ("bcryptprimitives.dll not found"). This stand-in
 * answers from RtlGenRandom (advapi32's SystemFunction036), the system's CSPRNG on every Windows
 * and on Wine. It is built with MinGW into the test Wine prefix by scripts/windows-test.sh and is
 * never shipped: real Windows 10+ has the real DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x7fffffffu ? 0x7fffffffu : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
