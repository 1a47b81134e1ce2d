/* The --json file of the benchmarks that report a list of rows. */
#ifndef TANDEM_CLI_BENCH_JSON_H
#define TANDEM_CLI_BENCH_JSON_H

#include <stddef.h>

#include "json_writer.h"

/* Writes row i of rows as one JSON object. */
typedef void (*bench_json_row)(json_writer *w, const void *rows, size_t i);

/* Writes {"rows": [...]} with count rows to path; 1 (after saying why) if it cannot. */
int bench_write_rows(const char *path, bench_json_row row, const void *rows, size_t count);

#endif
