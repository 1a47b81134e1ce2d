/* Runs a fuzz target once over every file of the directories (or files) given: the
 * seed corpus and every crash the fuzzer ever found, as ordinary tests of an ordinary
 * build. libFuzzer's own main replaces this in the fuzzing build. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_input.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    static uint8_t data[1 << 20];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    return 0;
}

int main(int argc, char **argv)
{
    size_t runs = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            failed |= run_file(argv[i]);
            runs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        for (struct dirent *e; d && (e = readdir(d));) {
            char path[4096];
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            failed |= run_file(path);
            runs++;
        }
        if (d)
            closedir(d);
    }
    printf("%s: %zu inputs replayed\n", argv[0], runs);
    return failed || !runs;
}
