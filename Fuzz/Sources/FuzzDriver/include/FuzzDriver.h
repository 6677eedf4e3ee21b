#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry for a program that has its own `main` (compiler-rt, FuzzerDriver.cpp).
/// SwiftPM links every executable with its own entry point, so the targets start libFuzzer
/// through this instead of libFuzzer's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

#endif
