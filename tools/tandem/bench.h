/* The benchmarks of `tandem bench`. */
#ifndef TANDEM_CLI_BENCH_H
#define TANDEM_CLI_BENCH_H

#include <stddef.h>

/* Each returns the process exit status. argv[0] is the benchmark's name. */
int bench_allreduce(int argc, char **argv);
int bench_train(int argc, char **argv);

/* "256M" -> 268435456 (suffixes K, M, G: powers of 1024). 0 on success, -1 if the
 * text is not a size. */
int bench_parse_size(const char *text, size_t *out);

#endif
