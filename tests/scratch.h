/* Scratch files for tests: a directory under $TMPDIR (or /tmp), removed with all it
 * holds at the end, and whole-file reads and writes. Failures stop the test. */
#ifndef TDM_TEST_SCRATCH_H
#define TDM_TEST_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#define SCRATCH_PATH 4096

/* Creates the scratch root ($TMPDIR/<prefix>-XXXXXX); its path. */
const char *scratch_root(const char *prefix);

/* Removes the root and everything under it (at exit too, if not called). */
void scratch_remove(void);

/* out = root/name (a fresh directory when dir is non-zero). */
void scratch_path(char *out, const char *name, int dir);

/* out = dir/ckpt-<step, 20 digits>.tdm */
void scratch_checkpoint_name(char *out, const char *dir, uint64_t step);

/* The whole file, malloc'd; NULL when it cannot be read. */
unsigned char *scratch_read(const char *path, size_t *size);
void scratch_write(const char *path, const void *data, size_t size);

/* Entries of dir whose names contain `part`. */
size_t scratch_count(const char *dir, const char *part);

#endif
