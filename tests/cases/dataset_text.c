/* A text as data (tdm_dataset_from_text, and tdm_dataset_from_text_bytes in memory):
 * windows of bytes with next-byte labels, the training part cut on a window's start,
 * the held-out part after it, plain or gzip, and every bad text refused naming the
 * file and why. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "scratch.h"

#define SIZE 100
#define CONTEXT 4
#define STRIDE 3

static unsigned char text[SIZE];

static const char *write_file(const char *name, const void *bytes, size_t size, int gzip)
{
    static char paths[8][SCRATCH_PATH];
    static size_t used;
    char *path = paths[used++ % 8];
    scratch_path(path, name, 0);
    int written;
    if (gzip) {
        gzFile g = gzopen(path, "wb");
        written = g && gzwrite(g, bytes, (unsigned)size) == (int)size && gzclose(g) == Z_OK;
    } else {
        FILE *f = fopen(path, "wb");
        written = f && fwrite(bytes, 1, size, f) == size && fclose(f) == 0;
    }
    if (!written) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    return path;
}

/* Window r of ds holds text[from + r * STRIDE ...]: CONTEXT ids, the next bytes as
 * labels; `windows` of them. */
static void check_windows(const tdm_dataset *ds, size_t from, size_t windows)
{
    CHECK(tdm_dataset_example_count(ds) == windows);
    CHECK(tdm_dataset_feature_count(ds) == CONTEXT && tdm_dataset_label_width(ds) == CONTEXT);
    CHECK(tdm_dataset_class_count(ds) == 256 && tdm_dataset_label_dtype(ds) == TDM_I32);
    tdm_dataset_iterator *it = NULL;
    CHECK_OK(tdm_dataset_iterator_create(ds, &it));
    const tdm_batch *b = NULL;
    size_t r = 0, wrong = 0;
    while (it && tdm_dataset_iterator_next(it, &b) == TDM_OK && b->count) {
        const unsigned char *w = text + from + r * STRIDE;
        for (size_t p = 0; p < CONTEXT; p++)
            wrong += b->features[p] != (float)w[p] || b->labels[p] != (int32_t)w[p + 1];
        r++;
    }
    CHECK(r == windows && wrong == 0);
    tdm_dataset_iterator_destroy(it);
}

/* 100 bytes: the first 90 (a multiple of 3) give windows from 0 to 84, the last 10
 * windows from 90 and 93; from a plain file, a gzip one, or memory (-1). */
static void check_cut(int gzip)
{
    tdm_dataset *train = NULL, *val = NULL;
    tdm_text_layout layout = {0};
    if (gzip < 0)
        CHECK_OK(tdm_dataset_from_text_bytes(text, SIZE, "memory", CONTEXT, STRIDE, 0.1, &train,
                                             &val, &layout));
    else
        CHECK_OK(tdm_dataset_from_text(write_file(gzip ? "text.gz" : "text.txt", text, SIZE, gzip),
                                       CONTEXT, STRIDE, 0.1, &train, &val, &layout));
    CHECK(layout.bytes == SIZE && layout.train_bytes == 90);
    if (train && val) {
        check_windows(train, 0, 29);
        check_windows(val, 90, 2);
    }
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(val);
}

static void check_refused(void)
{
    tdm_dataset *train = NULL, *val = NULL;
    const char *good = write_file("good.txt", text, SIZE, 0);
    CHECK_FAILS(tdm_dataset_from_text(good, 0, 1, 0.1, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT, "context 0 and stride 1 must be > 0");
    CHECK_FAILS(tdm_dataset_from_text(good, 4, 4, 1.0, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT, "validation_fraction 1 in (0, 1)");
    const char *empty = write_file("empty.txt", "", 0, 0);
    CHECK_FAILS(tdm_dataset_from_text(empty, 4, 4, 0.1, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT, "empty.txt: the file is empty");
    unsigned char binary[SIZE];
    memcpy(binary, text, SIZE);
    binary[41] = 0;
    const char *nul = write_file("binary.bin", binary, SIZE, 0);
    CHECK_FAILS(tdm_dataset_from_text(nul, 4, 4, 0.1, &train, &val, NULL), TDM_ERR_INVALID_ARGUMENT,
                "binary.bin: byte 42 is NUL: a binary file");
    CHECK_FAILS(tdm_dataset_from_text(good, 90, 90, 0.1, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT,
                "good.txt: its training part (its first 90 of 100 bytes, cut at a multiple of "
                "the stride 90) is shorter than one window of context + 1 = 91 bytes");
    CHECK_FAILS(tdm_dataset_from_text(good, 10, 10, 0.1, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT,
                "its held-out part (its last 10 of 100 bytes) is shorter than one window");
    char missing[SCRATCH_PATH];
    scratch_path(missing, "missing.txt", 0);
    CHECK_FAILS(tdm_dataset_from_text(missing, 4, 4, 0.1, &train, &val, NULL), TDM_ERR_NOT_FOUND,
                "missing.txt");
    CHECK(train == NULL && val == NULL);
    CHECK_FAILS(tdm_dataset_from_text_bytes("", 0, "memory", 4, 4, 0.1, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT,
                "tdm_dataset_from_text_bytes: memory: the text is "
                "empty");
    CHECK_FAILS(tdm_dataset_from_text_bytes(binary, SIZE, "given", 4, 4, 0.1, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT, "given: byte 42 is NUL");
    CHECK_FAILS(tdm_dataset_from_text_bytes(text, SIZE, "given", 10, 10, 0.1, &train, &val, NULL),
                TDM_ERR_INVALID_ARGUMENT, "given: its held-out part (its last 10 of 100 bytes)");
    CHECK(train == NULL && val == NULL);
}

void test_case_dataset_text(const test_run *run)
{
    (void)run;
    scratch_root("tdm_text");
    for (size_t i = 0; i < SIZE; i++)
        text[i] = (unsigned char)((i * 37 + 200) % 255 + 1); /* UTF-8's high bytes too, no NUL */
    check_cut(0);
    check_cut(1);
    check_cut(-1);
    check_refused();
    scratch_remove();
}
