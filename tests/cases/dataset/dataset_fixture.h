/* The dataset case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_DATASET_FIXTURE_H
#define TDM_TEST_DATASET_FIXTURE_H

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <zlib.h>
#ifndef _WIN32
#include <sys/stat.h> /* mkfifo */
#include <unistd.h>   /* alarm */
#endif

#include "harness.h"
#include "platform/tdm_host.h"
#include "scratch.h"

#define MAX_FILES 96

extern const char *ds_tmp_dir; /* the scratch root, removed at exit */
extern char ds_created[MAX_FILES][SCRATCH_PATH];
extern size_t ds_created_count;

/* A path in the scratch directory, kept for the whole case. */
const char *ds_tmp_path(const char *name);

const char *ds_write_bytes(const char *name, const void *bytes, size_t size);

const char *ds_write_text(const char *name, const char *text);

const char *ds_write_gzip(const char *name, const void *bytes, size_t size);

/* dataset.c */
size_t ds_read_all(const tdm_dataset *ds, float *features, int32_t *labels, size_t max);

/* dataset_transforms.c */
void ds_check_arrays(void);
void ds_check_sequences(void);
void ds_check_batch(void);
void ds_check_end_and_batch_info(void);
void ds_check_repeat(void);
void ds_check_take_skip(void);
void ds_check_split(void);
void ds_check_shuffle(void);
void ds_check_shuffle_once_split(void);
void ds_check_shuffle_after_selection(void);
void ds_check_map(void);
void ds_check_standardize(void);
void ds_check_position_resume(void);
void ds_check_position_errors(void);
void ds_check_snapshot(void);

#endif
