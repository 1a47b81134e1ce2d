/* The train op's timeline (docs/TRAINING.md, "A timeline of the steps"): buffers for
 * the window's steps, allocated when tracing starts so that a traced step allocates
 * nothing, and the writer of Chrome's trace event JSON. Processes are ranks + 1 and
 * threads replicas + 1: trace viewers take pid and tid 0 for the kernel's idle task. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/checked_size.h"
#include "base/clock.h"
#include "base/error.h"
#include "checkpoint/output_file.h"
#include "device/device_time.h"
#include "platform/tdm_files.h"
#include "tandem/device.h"
#include "train_op/train_trace.h"

struct tdm_train_trace {
    tdm_strategy *strategy;
    char *path; /* with the rank, in a job of several processes */
    uint64_t first, last;
    size_t window, replicas, buckets;
    tdm_trace_step *steps; /* [last - first + 1] */
    tdm_trace_replica *replica_times;
    double *bucket_times;
    int unwritten; /* steps kept since the file was written */
};

static const char func[] = "tdm_train_op_trace";

/* "dir/name.rank<R>.ext", or "dir/name.rank<R>" without an extension. */
static char *ranked_path(const char *path, size_t rank)
{
    const char *base = tdm_path_base_name(path), *dot = strrchr(base, '.');
    size_t stem = dot && dot > base ? (size_t)(dot - path) : strlen(path);
    size_t size = strlen(path) + 32;
    char *out = malloc(size);
    if (out)
        snprintf(out, size, "%.*s.rank%zu%s", (int)stem, path, rank, path + stem);
    return out;
}

static tdm_status allocate(tdm_train_trace *t, size_t window)
{
    size_t replica_count, bucket_count;
    if (tdm_mul_overflows(window, t->replicas, &replica_count) ||
        tdm_mul3_overflows(replica_count, t->buckets, 2, &bucket_count))
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: a window of %zu steps is too large", func,
                        window);
    t->steps = calloc(window, sizeof *t->steps);
    t->replica_times = calloc(replica_count, sizeof *t->replica_times);
    t->bucket_times = calloc(bucket_count, sizeof *t->bucket_times);
    if (!t->steps || !t->replica_times || !t->bucket_times)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory for a window of %zu steps",
                        func, window);
    for (size_t i = 0; i < window; i++) {
        t->steps[i].replicas = t->replica_times + i * t->replicas;
        for (size_t r = 0; r < t->replicas; r++)
            t->steps[i].replicas[r].buckets =
                t->bucket_times + (i * t->replicas + r) * 2 * t->buckets;
    }
    return TDM_OK;
}

tdm_status tdm_train_trace_create(tdm_strategy *s, const char *path, uint64_t first, uint64_t last,
                                  size_t buckets, tdm_train_trace **out)
{
    *out = NULL;
    if (first > last || last - first >= SIZE_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: steps %llu to %llu are no window", func,
                        (unsigned long long)first, (unsigned long long)last);
    tdm_train_trace *t = calloc(1, sizeof *t);
    if (!t)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    *t = (tdm_train_trace){.strategy = s,
                           .first = first,
                           .last = last,
                           .window = (size_t)(last - first) + 1,
                           .replicas = tdm_strategy_num_local_replicas(s),
                           .buckets = buckets};
    t->path = tdm_strategy_num_workers(s) > 1 ? ranked_path(path, tdm_strategy_worker_index(s))
                                              : strdup(path);
    tdm_status st = t->path ? allocate(t, t->window)
                            : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    if (st != TDM_OK) {
        tdm_train_trace_destroy(t);
        return st;
    }
    *out = t;
    return TDM_OK;
}

void tdm_train_trace_destroy(tdm_train_trace *t)
{
    if (!t)
        return;
    free(t->path);
    free(t->steps);
    free(t->replica_times);
    free(t->bucket_times);
    free(t);
}

tdm_trace_step *tdm_train_trace_begin(tdm_train_trace *t, uint64_t step)
{
    if (!t || step < t->first || step > t->last)
        return NULL;
    tdm_trace_step *st = &t->steps[step - t->first];
    st->input[0] = st->input[1] = st->end = 0.0;
    for (size_t r = 0; r < t->replicas; r++)
        st->replicas[r].device_clock = 1;
    return st;
}

tdm_status tdm_trace_time(tdm_trace_replica *t, tdm_device *dev, double *at)
{
    tdm_time_source source;
    tdm_status s = tdm_device_time(dev, at, &source);
    t->device_clock &= source == TDM_TIME_DEVICE;
    return s;
}

tdm_status tdm_train_trace_end(tdm_train_trace *t, tdm_trace_step *st, uint64_t step)
{
    st->end = tdm_seconds();
    t->unwritten = 1;
    return step == t->last ? tdm_train_trace_write(t) : TDM_OK;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Microseconds with three decimals, from whole nanoseconds, so that a span ending
 * where the next begins prints the same number for both. */
static long long nanoseconds(double seconds)
{
    return llround(seconds * 1e9);
}

static const char host_clock[] = "host";

static void put_span(FILE *f, const char *name, size_t bucket, const char *cat, size_t pid,
                     size_t tid, uint64_t step, const char *clock, double from, double to)
{
    long long ts = nanoseconds(from), dur = nanoseconds(to) - ts;
    fprintf(f, ",\n{\"ph\":\"X\",\"name\":\"%s", name);
    if (bucket != SIZE_MAX)
        fprintf(f, " %zu", bucket);
    fprintf(f,
            "\",\"cat\":\"%s\",\"pid\":%zu,\"tid\":%zu,\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,"
            "\"args\":{\"step\":%llu,\"clock\":\"%s\"}}",
            cat, pid, tid, ts / 1000, ts % 1000, dur / 1000, dur % 1000, (unsigned long long)step,
            clock);
}

static void put_names(FILE *f, const tdm_train_trace *t, size_t pid)
{
    size_t rank = pid - 1;
    fprintf(f,
            "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,\"tid\":0,\"args\":{\"name\":"
            "\"rank %zu\"}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%zu,"
            "\"tid\":0,\"args\":{\"sort_index\":%zu}}",
            pid, rank, pid, rank);
    for (size_t r = 0; r < t->replicas; r++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        if (tdm_device_describe(tdm_strategy_device(t->strategy, r), &d) != TDM_OK)
            snprintf(d.id, sizeof d.id, "?");
        char name[TDM_DEVICE_ID_MAX + TDM_DEVICE_NAME_MAX + 32];
        snprintf(name, sizeof name, "replica %zu: %s (%s)", r, d.id, d.name);
        fprintf(f,
                ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%zu,\"tid\":%zu,\"args\":"
                "{\"name\":",
                pid, r + 1);
        put_string(f, name);
        fprintf(f,
                "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%zu,\"tid\":%zu,"
                "\"args\":{\"sort_index\":%zu}}",
                pid, r + 1, r);
    }
}

static void put_step(FILE *f, const tdm_train_trace *t, size_t pid, uint64_t step,
                     const tdm_trace_step *st)
{
    for (size_t r = 0; r < t->replicas; r++) {
        const tdm_trace_replica *p = &st->replicas[r];
        size_t tid = r + 1;
        const char *device = p->device_clock ? "device" : host_clock;
        if (st->input[1] > 0.0)
            put_span(f, "input wait", SIZE_MAX, "input", pid, tid, step, host_clock, st->input[0],
                     st->input[1]);
        put_span(f, "forward+backward", SIZE_MAX, "compute", pid, tid, step, device, p->loss[0],
                 p->loss[1]);
        for (size_t b = 0; b < t->buckets; b++)
            put_span(f, "all-reduce bucket", b, "all-reduce", pid, tid, step, device,
                     p->buckets[2 * b], p->buckets[2 * b + 1]);
        put_span(f, "update", SIZE_MAX, "update", pid, tid, step, device, p->update[0],
                 p->update[1]);
        /* from the update's end on the device to the step's end on the host */
        put_span(f, "idle", SIZE_MAX, "idle", pid, tid, step, host_clock, p->update[1], st->end);
    }
}

static void put_trace(FILE *f, const tdm_train_trace *t)
{
    size_t pid = tdm_strategy_worker_index(t->strategy) + 1;
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"clock\":\"host monotonic; a span's "
               "args.clock: device (its device's timestamps, mapped onto the host's clock) or "
               "host (read once the device had finished)\"},\n\"traceEvents\":[\n");
    put_names(f, t, pid);
    for (size_t i = 0; i < t->window; i++)
        if (t->steps[i].end > 0.0)
            put_step(f, t, pid, t->first + i, &t->steps[i]);
    fprintf(f, "\n]}\n");
}

tdm_status tdm_train_trace_write(tdm_train_trace *t)
{
    if (!t->unwritten)
        return TDM_OK;
    tdm_output_file out;
    tdm_status s = tdm_output_open(t->path, TDM_OUTPUT_STREAM, func, &out);
    if (s == TDM_OK) {
        put_trace(out.f, t);
        s = tdm_output_commit(&out, func);
    }
    if (s == TDM_OK)
        t->unwritten = 0;
    return s;
}
