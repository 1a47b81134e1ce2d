/* What the fuzz targets share: the fuzzer's bytes as a file that tandem's readers
 * open by path (a memfd, so nothing touches the disk), and the entry point that
 * libFuzzer, or replay_main.c in an ordinary build, calls with each input. */
#ifndef TDM_FUZZ_INPUT_H
#define TDM_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* A path whose file now holds exactly data[0..size) ("/proc/self/fd/N"). slot picks
 * one of two files, for readers of a pair (IDX images and labels). */
const char *fuzz_file(int slot, const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
