/* The checkpoint case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_CHECKPOINT_FIXTURE_H
#define TDM_TEST_CHECKPOINT_FIXTURE_H

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>
#ifndef _WIN32
#include <signal.h>       /* SIGXFSZ */
#include <sys/resource.h> /* RLIMIT_FSIZE */
#endif

#include "harness.h"
#include "platform/tdm_files.h"
#include "scratch.h"

#define PATH_CAP 4096

struct entry_search {
    const char *dir, *part;
    char *out;
};

typedef struct tensor {
    const char *name;
    tdm_dtype dtype;
    tdm_shape shape;
    void *data; /* shape's count of 4-byte elements */
} tensor;

#define EXPECT_CORRUPT(path, needle) ckpt_expect_corrupt_(path, needle, __LINE__)

extern char ckpt_root[PATH_CAP];

/* A path that does not fit fails the test. */
void ckpt_fits(int n);

void ckpt_path_of(char *out, const char *dir, const char *name);

void ckpt_make_subdir(char *out, const char *name);

void ckpt_final_name(char *out, const char *dir, uint64_t step);

/* The first place of needle in the size bytes at data (memmem, which Windows lacks). */
const unsigned char *ckpt_find_bytes(const unsigned char *data, size_t size, const void *needle,
                                     size_t n);

void ckpt_spit(const char *path, const void *data, size_t size);

int ckpt_match_entry(const char *name, void *user);

/* The name of the first entry of dir containing `part`, into out. */
int ckpt_find_entry(const char *dir, const char *part, char *out);

void ckpt_commit_simple(const char *dir, uint64_t step);

/* Opening path fails with CORRUPT_DATA mentioning needle ("" for any message). */
void ckpt_expect_corrupt_(const char *path, const char *needle, int line);

/* checkpoint_writer.c */
void ckpt_test_writer_failures(void);
void ckpt_test_variables(void);

#endif
