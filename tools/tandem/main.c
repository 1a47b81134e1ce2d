/* tandem: the command-line tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_dispatch.h"
#include "commands.h"
#include "tandem/tandem.h"
#include "platform/tdm_host.h"

static const cli_subcommand commands[] = {
    {"train", cmd_train, "train a model data-parallel over the devices (digits by default)"},
    {"predict", cmd_predict, "predict with a model saved by 'tandem train --save'"},
    {"export", cmd_export, "write a model saved by 'tandem train --save' as an ONNX model"},
    {"generate", cmd_generate, "continue a text with a language model of 'tandem train --text'"},
    {"devices", cmd_devices, "list every device on every backend"},
    {"conformance", cmd_conformance, "check every kernel on every device against the reference"},
    {"bench", cmd_bench, "measure collectives and training against in-run ceilings"},
};

int main(int argc, char **argv)
{
    /* OpenBLAS, which multiplies for OpenCL CPU devices, keeps its threads spinning
     * for 2^28 cycles after each product, on the cores the device's next kernels need:
     * a fifth of a convolutional step here (docs/PERFORMANCE.md). The tool asks for
     * its shortest wait unless the user chose one; OpenBLAS reads it as it loads. */
    tdm_host_setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
    tdm_host_binary_stdio(); /* the same bytes as the Linux build's, "\n" alone */
    tdm_host_file_size_errors(); /* past `ulimit -f`, a message and no leftovers */
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("tandem %s\n", tdm_version());
        return 0;
    }
    static const cli_dispatch_table table = {"tandem", "COMMAND", "command", commands,
                                             sizeof commands / sizeof commands[0]};
    return cli_dispatch(&table, argc, argv);
}
