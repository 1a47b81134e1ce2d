/* The fuzzer's bytes as files in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"

const char *fuzz_file(int slot, const uint8_t *data, size_t size)
{
    static int fds[2] = {-1, -1};
    static char paths[2][32];
    if (fds[slot] < 0) {
        fds[slot] = memfd_create("tandem-fuzz", MFD_CLOEXEC);
        /* Inputs that decompress past this are refused, which is a path to test too. */
        setenv("TDM_MAX_INPUT_BYTES", "16M", 0);
        if (fds[slot] < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(paths[slot], sizeof paths[slot], "/proc/self/fd/%d", fds[slot]);
    }
    if (ftruncate(fds[slot], 0) != 0 ||
        (size && pwrite(fds[slot], data, size, 0) != (ssize_t)size)) {
        perror("fuzz_file");
        abort();
    }
    return paths[slot];
}
