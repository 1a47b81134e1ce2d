/* Fuzzes tandem train's option parser: the input, cut at NUL bytes, is argv. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "train_options.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 1] = {"train"};
    int argc = 1;
    for (char *p = text; p < text + size && argc < MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    train_options o;
    char err[512];
    train_options_read(argc, argv, &o, err, sizeof err);
    free(text);
    return 0;
}
