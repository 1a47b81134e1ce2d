/* tandem: the command-line tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tandem/tandem.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"train", cmd_train, "train a model data-parallel over the devices (digits by default)"},
    {"predict", cmd_predict, "predict with a model saved by 'tandem train --save'"},
    {"devices", cmd_devices, "list every device on every backend"},
    {"conformance", cmd_conformance, "check every kernel on every device against the reference"},
    {"bench", cmd_bench, "measure collectives and training against in-run ceilings"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: tandem COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'tandem COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    /* OpenBLAS, which multiplies for OpenCL CPU devices, keeps its threads spinning
     * for 2^28 cycles after each product, on the cores the device's next kernels need:
     * a fifth of a convolutional step here (docs/PERFORMANCE.md). The tool asks for
     * its shortest wait unless the user chose one; OpenBLAS reads it as it loads. */
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tandem %d.%d.%d\n", TDM_VERSION_MAJOR, TDM_VERSION_MINOR, TDM_VERSION_PATCH);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tandem: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
