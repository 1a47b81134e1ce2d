/* TensorBoard event files (tandem/summary.h) read back by a reader of this file's own:
 * the TFRecord framing and its masked CRC-32Cs, each Event's fields, the first record
 * byte for byte as TensorBoard's own RecordWriter writes it, the file's name, and the
 * refusals. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "base/protobuf_writer.h"
#include "harness.h"
#include "scratch.h"
#include "summary/event_record.h"

/* The fields of one Event this test reads. */
typedef struct event {
    double wall_time;
    int64_t step;
    char file_version[32];
    char tag[64];
    float value;
    int has_summary;
} event;

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* TFRecord's mask, written out here apart from the writer's. */
static uint32_t masked(const void *data, size_t size)
{
    uint32_t crc = tdm_crc32c(0, data, size);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
    uint64_t v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    return v;
}

/* Summary { Value { tag = 1, simple_value = 2 } = 1 }: the first value. */
static int read_summary(const uint8_t *p, const uint8_t *end, event *e)
{
    while (p < end) {
        uint64_t key = varint(&p, end), size = varint(&p, end);
        if (key != (1 << 3 | 2) || size > (uint64_t)(end - p))
            return 0;
        const uint8_t *v = p, *v_end = p + size;
        while (v < v_end) {
            uint64_t k = varint(&v, v_end);
            if (k == (1 << 3 | 2)) {
                uint64_t n = varint(&v, v_end);
                if (n >= sizeof e->tag || n > (uint64_t)(v_end - v))
                    return 0;
                memcpy(e->tag, v, n);
                e->tag[n] = '\0';
                v += n;
            } else if (k == (2 << 3 | 5) && v_end - v >= 4) {
                uint32_t bits = le32(v);
                memcpy(&e->value, &bits, sizeof bits);
                v += 4;
            } else {
                return 0;
            }
        }
        p = v_end;
    }
    e->has_summary = 1;
    return 1;
}

/* Event { wall_time = 1 (double), step = 2 (int64), file_version = 3, summary = 5 }. */
static int read_event(const uint8_t *p, const uint8_t *end, event *e)
{
    memset(e, 0, sizeof *e);
    while (p < end) {
        uint64_t key = varint(&p, end);
        if (key == (1 << 3 | 1) && end - p >= 8) {
            uint64_t bits = le64(p);
            memcpy(&e->wall_time, &bits, sizeof bits);
            p += 8;
        } else if (key == (2 << 3 | 0)) {
            e->step = (int64_t)varint(&p, end);
        } else if (key == (3 << 3 | 2) || key == (5 << 3 | 2)) {
            uint64_t n = varint(&p, end);
            if (n > (uint64_t)(end - p))
                return 0;
            if (key == (5 << 3 | 2) && !read_summary(p, p + n, e))
                return 0;
            if (key == (3 << 3 | 2)) {
                if (n >= sizeof e->file_version)
                    return 0;
                memcpy(e->file_version, p, n);
            }
            p += n;
        } else {
            return 0;
        }
    }
    return 1;
}

/* The file's records into events (at most max): their count, or -1 where a record's
 * framing or a CRC is wrong. */
static int read_records(const uint8_t *data, size_t size, event *events, int max)
{
    int n = 0;
    size_t at = 0;
    while (at < size) {
        if (size - at < 12 || n == max)
            return -1;
        uint64_t length = le64(data + at);
        if (le32(data + at + 8) != masked(data + at, 8) || length > size - at - 16)
            return -1;
        const uint8_t *body = data + at + 12;
        if (le32(body + length) != masked(body, length) ||
            !read_event(body, body + length, &events[n]))
            return -1;
        n++;
        at += 16 + length;
    }
    return n;
}

static const struct {
    const char *tag;
    int64_t step;
    double value;
} scalars[] = {
    {"epoch_loss", 0, 2.302585}, {"epoch_loss", 1, 0.125},        {"epoch_accuracy", 1, 0.96875},
    {"batch_loss", -3, 1e-30},   {"epoch_loss", INT64_MAX, -7.5}, {"a/b c", 5, 1.0 / 3.0},
};

static void check_written_file(const char *dir)
{
    tdm_summary_writer *w = NULL;
    double before = (double)time(NULL);
    CHECK_OK(tdm_summary_open(dir, &w));
    if (!w)
        return;
    const size_t count = sizeof scalars / sizeof scalars[0];
    for (size_t i = 0; i < count; i++)
        CHECK_OK(tdm_summary_scalar(w, scalars[i].tag, scalars[i].step, scalars[i].value));
    CHECK_OK(tdm_summary_scalar(w, "nan", 7, NAN));
    CHECK_OK(tdm_summary_flush(w));
    char path[SCRATCH_PATH];
    snprintf(path, sizeof path, "%s", tdm_summary_path(w));
    CHECK_OK(tdm_summary_close(w));
    double after = (double)time(NULL) + 1.0;

    /* dir/events.out.tfevents.<10 digits>.<host>.<pid>.0 */
    const char *name = path + strlen(dir) + 1;
    CHECK(strncmp(path, dir, strlen(dir)) == 0 && path[strlen(dir)] == '/');
    CHECK(strncmp(name, "events.out.tfevents.", 20) == 0 && strlen(name) > 31 && name[30] == '.');
    CHECK(strcmp(name + strlen(name) - 2, ".0") == 0);
    CHECK(scratch_count(dir, "tfevents") == 1);

    size_t size = 0;
    unsigned char *data = scratch_read(path, &size);
    event events[16];
    int n = data ? read_records(data, size, events, 16) : -1;
    CHECK(n == (int)count + 2);
    if (n == (int)count + 2) {
        CHECK(strcmp(events[0].file_version, "brain.Event:2") == 0 && !events[0].has_summary);
        for (int i = 0; i < n; i++)
            CHECK(events[i].wall_time >= before && events[i].wall_time <= after);
        for (size_t i = 0; i < count; i++) {
            const event *e = &events[i + 1];
            CHECK(e->has_summary && e->step == scalars[i].step);
            CHECK(strcmp(e->tag, scalars[i].tag) == 0 && e->value == (float)scalars[i].value);
        }
        CHECK(events[n - 1].step == 7 && isnan(events[n - 1].value));
    }
    /* One damaged byte of a record's data fails its CRC. */
    if (data && size > 40) {
        data[size - 6] ^= 1;
        CHECK(read_records(data, size, events, 16) == -1);
    }
    free(data);
}

/* The first record as TensorBoard's RecordWriter writes Event(wall_time=1700000000.25,
 * file_version="brain.Event:2"), its bytes taken from tensorboard 2.x. */
static void check_version_record_bytes(void)
{
    static const uint8_t want[] = {0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa3, 0x7f,
                                   0x4b, 0x22, 0x09, 0x00, 0x00, 0x10, 0x40, 0xfc, 0x54, 0xd9,
                                   0x41, 0x1a, 0x0d, 0x62, 0x72, 0x61, 0x69, 0x6e, 0x2e, 0x45,
                                   0x76, 0x65, 0x6e, 0x74, 0x3a, 0x32, 0x33, 0x8d, 0x2f, 0xe9};
    tdm_pb pb;
    tdm_pb_init(&pb);
    tdm_event_version_record(&pb, 1700000000.25);
    CHECK_OK(tdm_pb_finish(&pb, "version record"));
    CHECK(pb.size == sizeof want && memcmp(pb.data, want, sizeof want) == 0);
    tdm_pb_free(&pb);
}

/* Two writers in one folder within a second: two files, the second's name sorting
 * after the first's. A folder's missing parents are made. A file of a later second and
 * a larger process id is there already (a run resumed within the second its first run
 * began, under a process id of more digits): the new name sorts after it. */
static void check_names(const char *root)
{
    char dir[SCRATCH_PATH];
    snprintf(dir, sizeof dir, "%s/runs/one/train", root);
    tdm_summary_writer *a = NULL, *b = NULL, *c = NULL;
    CHECK_OK(tdm_summary_open(dir, &a));
    CHECK_OK(tdm_summary_open(dir, &b));
    CHECK(a && b && strcmp(tdm_summary_path(a), tdm_summary_path(b)) < 0);
    CHECK_OK(tdm_summary_close(a));
    CHECK_OK(tdm_summary_close(b));
    CHECK(scratch_count(dir, "tfevents") == 2);

    char earlier[SCRATCH_PATH + 64];
    snprintf(earlier, sizeof earlier, "%s/events.out.tfevents.%010lld.host.99999999.0", dir,
             (long long)time(NULL) + 5);
    FILE *f = fopen(earlier, "wb");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK_OK(tdm_summary_open(dir, &c));
    CHECK(c && strcmp(tdm_summary_path(c), earlier) > 0);
    CHECK_OK(tdm_summary_close(c));
}

static void check_refusals(const char *root)
{
    tdm_summary_writer *w = NULL;
    CHECK_FAILS(tdm_summary_open(NULL, &w), TDM_ERR_INVALID_ARGUMENT, "'dir' is NULL");
    CHECK_FAILS(tdm_summary_open("", &w), TDM_ERR_INVALID_ARGUMENT, "empty");
    char file[SCRATCH_PATH], under[SCRATCH_PATH + 8];
    snprintf(file, sizeof file, "%s/a_file", root);
    scratch_write(file, "x", 1);
    snprintf(under, sizeof under, "%s/logs", file);
    CHECK_FAILS(tdm_summary_open(file, &w), TDM_ERR_NOT_FOUND, file);
    CHECK_FAILS(tdm_summary_open(under, &w), TDM_ERR_NOT_FOUND, "cannot make the folder");
    CHECK(w == NULL);
    CHECK_OK(tdm_summary_open(root, &w));
    char long_tag[4098];
    memset(long_tag, 't', sizeof long_tag - 1);
    long_tag[sizeof long_tag - 1] = '\0';
    CHECK_FAILS(tdm_summary_scalar(w, "", 0, 1.0), TDM_ERR_INVALID_ARGUMENT, "1 to 4096");
    CHECK_FAILS(tdm_summary_scalar(w, long_tag, 0, 1.0), TDM_ERR_INVALID_ARGUMENT, "4097 bytes");
    CHECK_FAILS(tdm_summary_scalar(w, NULL, 0, 1.0), TDM_ERR_INVALID_ARGUMENT, "'tag' is NULL");
    CHECK_FAILS(tdm_summary_scalar(NULL, "x", 0, 1.0), TDM_ERR_INVALID_ARGUMENT, "'w' is NULL");
    CHECK_FAILS(tdm_summary_flush(NULL), TDM_ERR_INVALID_ARGUMENT, "'w' is NULL");
    CHECK(tdm_summary_path(NULL) == NULL);
    CHECK_OK(tdm_summary_close(w));
    CHECK_OK(tdm_summary_close(NULL));
}

void test_case_summary_writer(const test_run *run)
{
    (void)run;
    const char *root = scratch_root("tdm_summary");
    char dir[SCRATCH_PATH];
    scratch_path(dir, "logs", 1);
    check_version_record_bytes();
    check_written_file(dir);
    check_names(root);
    check_refusals(root);
    scratch_remove();
}
