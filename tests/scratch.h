/* Scratch files for tests: a directory under $TMPDIR (or /tmp), removed with all it
 * holds at the end, and whole-file reads and writes. Failures stop the test. */
#ifndef TDM_TEST_SCRATCH_H
#define TDM_TEST_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCRATCH_PATH 4096

/* Makes a fresh directory <the temporary folder>/<prefix>-<unique> into out
 * (SCRATCH_PATH bytes): mkdtemp's promise on both systems. 0, or -1 with errno set.
 * The temporary folder is the platform's (tdm_temp_folder: $TMPDIR, else /tmp). */
int scratch_temp_dir(char *out, const char *prefix);

/* Whether anything (a link included) is at path. */
int scratch_exists(const char *path);

/* Removes path and everything under it (links are not followed): 0, or -1. */
int scratch_remove_tree(const char *path);

/* A stream that collects text in memory's stead (open_memstream is POSIX's alone):
 * write to it, then scratch_text_take closes it and returns what was written,
 * malloc'd and terminated; NULL when it could not be read. */
FILE *scratch_text_open(void);
char *scratch_text_take(FILE *f);

/* Creates the scratch root (scratch_temp_dir's); its path. */
const char *scratch_root(const char *prefix);

/* Removes the root and everything under it (at exit too, if not called). */
void scratch_remove(void);

/* out = root/name (a fresh directory when dir is non-zero). */
void scratch_path(char *out, const char *name, int dir);

/* out = dir/ckpt-<step, 20 digits>.tdm */
void scratch_checkpoint_name(char *out, const char *dir, uint64_t step);

/* The whole file, malloc'd with a zero byte after it, its size in *size (size may be
 * NULL); NULL when it cannot be read. */
unsigned char *scratch_read(const char *path, size_t *size);
void scratch_write(const char *path, const void *data, size_t size);

/* Entries of dir whose names contain `part`. */
size_t scratch_count(const char *dir, const char *part);

#endif
