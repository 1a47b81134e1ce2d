/* The monitor's checkpoint directory under attack: a second run is locked out and
 * told who holds it; a damaged, truncated, forged or foreign newest checkpoint is
 * reported, renamed aside (never overwritten) and the next older one restored; a
 * newer format version, a checkpoint over the input limit or one the caller refuses
 * stops the restore instead; FIFOs anywhere in the directory never block. */
#include <stdlib.h>
#include <zlib.h>
#ifndef _WIN32
#include <sys/stat.h> /* mkfifo */
#include <unistd.h>   /* alarm */
#endif

#include "harness.h"
#include "platform/tdm_host.h"
#include "scratch.h"
#include "train_fixture.h"

static tdm_context *ctx;
static tdm_device *devs[3];

/* What the damaged callback was told. */
typedef struct seen {
    int count;
    char path[SCRATCH_PATH], kept[SCRATCH_PATH], reason[1024];
} seen;

/* Whether a restore reported the checkpoint forged for step 99. */
static int seen_forged;

static void on_damaged(const char *path, const char *kept_as, const char *reason, void *user)
{
    seen *s = user;
    s->count++;
    seen_forged |= strstr(reason, "is named for step 99 (its header agrees), but "
                                  "'train/global_step' holds 4") != NULL;
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->kept, sizeof s->kept, "%s", kept_as);
    snprintf(s->reason, sizeof s->reason, "%s", reason);
}

static tdm_status open_run(fixture *f, const char *dir, seen *s)
{
    fixture_options o = FIXTURE_OPTIONS_INIT;
    o.checkpoint_dir = dir;
    o.checkpoint_every = 4;
    o.monitor.damaged = on_damaged;
    o.monitor.damaged_user = s;
    if (s)
        memset(s, 0, sizeof *s);
    return fixture_open(f, ctx, devs, 3, &o);
}

/* Runs until the global step is `to`, resuming from dir first. */
static void train_to(const char *dir, uint64_t to)
{
    fixture f;
    seen s;
    int restored = 0;
    uint64_t step = 0;
    CHECK_OK(open_run(&f, dir, &s));
    CHECK_OK(tdm_monitor_restore(f.monitor, &restored, &step));
    CHECK_OK(tdm_monitor_run_steps(f.monitor, to - step, NULL));
    CHECK(tdm_monitor_global_step(f.monitor) == to);
    fixture_close(&f);
}

/* Restores dir into a fresh run: the status, *step (0 when nothing was restored). */
static tdm_status restore(const char *dir, seen *s, uint64_t *step)
{
    fixture f;
    int restored = 0;
    *step = 0;
    tdm_status st = open_run(&f, dir, s);
    if (st == TDM_OK)
        st = tdm_monitor_restore(f.monitor, &restored, step);
    if (st == TDM_OK && restored)
        CHECK(tdm_train_op_global_step(f.op) == *step);
    fixture_close(&f);
    return st;
}

static void flip_byte(const char *path, size_t at)
{
    size_t size = 0;
    unsigned char *data = scratch_read(path, &size);
    CHECK(data && at < size);
    if (data && at < size) {
        data[at] ^= 0x40;
        scratch_write(path, data, size);
    }
    free(data);
}

static int same_file(const char *path, const unsigned char *want, size_t want_size)
{
    size_t size = 0;
    unsigned char *data = scratch_read(path, &size);
    int same = data && size == want_size && !memcmp(data, want, size);
    free(data);
    return same;
}

static void check_lock(void)
{
    char dir[SCRATCH_PATH];
    scratch_path(dir, "lock", 0); /* the monitor creates it */
    fixture a, b;
    CHECK_OK(open_run(&a, dir, NULL));
    char holder[64];
    snprintf(holder, sizeof holder, "(pid %ld)", tdm_host_process_id());
    CHECK_FAILS(open_run(&b, dir, NULL), TDM_ERR_INVALID_STATE, "is in use by another run");
    CHECK(b.monitor == NULL && strstr(tdm_last_error(), holder));
    fixture_close(&b);
    fixture_close(&a);
    CHECK_OK(open_run(&b, dir, NULL)); /* released with the monitor */
    fixture_close(&b);
}

static void check_damaged_newest(void)
{
    char dir[SCRATCH_PATH], newest[SCRATCH_PATH], older[SCRATCH_PATH];
    scratch_path(dir, "damaged", 1);
    train_to(dir, 12); /* checkpoints 4, 8, 12 */
    scratch_checkpoint_name(newest, dir, 12);
    size_t size = 0;
    unsigned char *good = scratch_read(newest, &size);
    flip_byte(newest, size / 2);
    size_t damaged_size = 0;
    unsigned char *damaged = scratch_read(newest, &damaged_size);
    seen s;
    uint64_t step = 0;
    CHECK_OK(restore(dir, &s, &step));
    CHECK(step == 8 && s.count == 1 && !strcmp(s.path, newest));
    CHECK(strstr(s.kept, "ckpt-00000000000000000012.tdm.damaged") != NULL);
    CHECK(strstr(s.reason, "CRC-32") != NULL);
    CHECK(!scratch_exists(newest) && same_file(s.kept, damaged, damaged_size));

    /* Training on writes a new step 12 and never touches the kept file. */
    train_to(dir, 16);
    CHECK(scratch_exists(newest) && same_file(s.kept, damaged, damaged_size));
    CHECK(!same_file(newest, damaged, damaged_size));
    CHECK(good && same_file(newest, good, size)); /* training is deterministic */

    /* Both newest damaged, 12 truncated: the second damaged 12 gets a name of its own. */
    scratch_checkpoint_name(older, dir, 16);
    flip_byte(older, 30);
    scratch_write(newest, good, size / 2); /* truncated: its first half */
    CHECK_OK(restore(dir, &s, &step));
    CHECK(step == 8 && s.count == 2 && strstr(s.reason, "truncated"));
    CHECK(strstr(s.kept, ".tdm.damaged-2") != NULL);
    CHECK(scratch_count(dir, ".damaged") == 3);

    /* All damaged (4 was pruned): each is reported and kept, and the run starts afresh. */
    scratch_checkpoint_name(older, dir, 8);
    flip_byte(older, 0);
    CHECK_OK(restore(dir, &s, &step));
    CHECK(step == 0 && s.count == 1 && scratch_count(dir, ".damaged") == 4);
    CHECK(strstr(s.reason, "not a tandem checkpoint") != NULL);
    free(good);
    free(damaged);
}

/* The header's CRC made right for its bytes as they are now. */
static void seal_header(unsigned char *data)
{
    uLong crc = crc32(0, data, 20);
    for (int i = 0; i < 4; i++)
        data[20 + i] = (unsigned char)(crc >> (8 * i));
}

/* A copy of step 4 under the name and header of step 99 once hid every newer one. */
static void check_forged_step(void)
{
    char dir[SCRATCH_PATH], from[SCRATCH_PATH], forged[SCRATCH_PATH];
    scratch_path(dir, "forged", 1);
    train_to(dir, 8);
    scratch_checkpoint_name(from, dir, 4);
    size_t size = 0;
    unsigned char *data = scratch_read(from, &size);
    CHECK(data && size > 24);
    if (!data)
        return;
    scratch_checkpoint_name(forged, dir, 50); /* renamed only */
    scratch_write(forged, data, size);
    data[12] = 99; /* header step 99, with its CRC made right */
    seal_header(data);
    scratch_checkpoint_name(forged, dir, 99);
    scratch_write(forged, data, size);
    free(data);
    seen s;
    uint64_t step = 0;
    CHECK_OK(restore(dir, &s, &step));
    CHECK(step == 8 && s.count == 2);
    CHECK(strstr(s.reason, "is named for step 50, but its header says step 4") != NULL);
    CHECK(seen_forged);
    CHECK(!scratch_exists(forged) && scratch_count(dir, ".damaged") == 2);
}

/* What stops a restore rather than falling back: a newer version (its header whole),
 * the input limit. A version field whose bit flipped is damage: the header's CRC says
 * so, and the restore falls back (once it stopped at "version 3"). */
static void check_no_fallback(void)
{
    char dir[SCRATCH_PATH], newest[SCRATCH_PATH];
    scratch_path(dir, "stops", 1);
    train_to(dir, 8);
    seen s;
    uint64_t step = 0;
    CHECK(tdm_host_setenv("TDM_MAX_INPUT_BYTES", "1K", 1) == 0);
    CHECK_FAILS(restore(dir, &s, &step), TDM_ERR_OUT_OF_MEMORY, "over the input limit of 1024");
    CHECK(tdm_host_unsetenv("TDM_MAX_INPUT_BYTES") == 0);
    scratch_checkpoint_name(newest, dir, 8);
    size_t size = 0;
    unsigned char *data = scratch_read(newest, &size);
    if (data) {
        data[8] = 2;
        seal_header(data);
        scratch_write(newest, data, size);
    }
    CHECK_FAILS(restore(dir, &s, &step), TDM_ERR_CORRUPT_DATA, "version 2");
    CHECK(step == 0 && s.count == 0 && scratch_count(dir, ".damaged") == 0);
    if (data) {
        data[8] = 1;
        seal_header(data);
        data[8] ^= 2; /* version 3, a flipped bit: the CRC no longer holds */
        scratch_write(newest, data, size);
    }
    free(data);
    CHECK_OK(restore(dir, &s, &step));
    CHECK(step < 8 && s.count == 1 && scratch_count(dir, ".damaged") == 1);
    CHECK(s.reason[0] && strstr(s.reason, "damaged") != NULL);
}

static tdm_status refuse(const tdm_checkpoint *c, void *user)
{
    (void)c;
    ++*(int *)user;
    return TDM_ERR_INVALID_ARGUMENT;
}

static tdm_status save_nothing(tdm_checkpoint_writer *w, void *user)
{
    (void)w, (void)user;
    return TDM_OK;
}

/* restore_extra runs first: refusing leaves the run as it was. */
static void check_extra_refuses(void)
{
    char dir[SCRATCH_PATH];
    scratch_path(dir, "refused", 1);
    train_to(dir, 4);
    fixture f;
    fixture_options o = FIXTURE_OPTIONS_INIT;
    int calls = 0, restored = 0;
    o.checkpoint_dir = dir;
    o.monitor.save_extra = save_nothing;
    o.monitor.restore_extra = refuse;
    o.monitor.extra_user = &calls;
    CHECK_OK(fixture_open(&f, ctx, devs, 3, &o));
    float before[512], after[512];
    size_t n = f.model ? fixture_weights(&f, before, 512) : 0;
    if (f.monitor)
        CHECK(tdm_monitor_restore(f.monitor, &restored, NULL) == TDM_ERR_INVALID_ARGUMENT);
    CHECK(calls == 1 && !restored && tdm_train_op_global_step(f.op) == 0);
    CHECK(n && fixture_weights(&f, after, 512) == n && !memcmp(before, after, n * sizeof(float)));
    fixture_close(&f);
    CHECK(scratch_count(dir, ".damaged") == 0);
}

/* A FIFO opened for reading waits for a writer: none may be opened that way. */
static void check_fifos(void)
{
#ifdef _WIN32
    printf("monitor_recovery: no FIFOs on Windows: not checked\n");
#else
    alarm(120); /* a hang fails here rather than at ctest's timeout */
    char dir[SCRATCH_PATH], path[SCRATCH_PATH + 64];
    scratch_path(dir, "fifos", 1);
    train_to(dir, 4);
    scratch_checkpoint_name(path, dir, 1000);
    CHECK(mkfifo(path, 0600) == 0);
    snprintf(path, sizeof path, "%s/.ckpt-00000000000000000001.tdm.tmp-1-1", dir);
    CHECK(mkfifo(path, 0600) == 0);
    seen s;
    uint64_t step = 0;
    CHECK_OK(restore(dir, &s, &step));
    CHECK(step == 4 && s.count == 1 && strstr(s.reason, "is a FIFO (named pipe)"));
    train_to(dir, 8); /* saves and prunes past the temporary FIFO, and leaves it */
    CHECK(scratch_exists(path));
    tdm_checkpoint *c = NULL;
    CHECK_FAILS(tdm_checkpoint_open(path, &c), TDM_ERR_NOT_FOUND, "is a FIFO");

    scratch_path(dir, "fifo-lock", 1);
    snprintf(path, sizeof path, "%s/.tandem-lock", dir);
    CHECK(mkfifo(path, 0600) == 0);
    fixture f;
    CHECK_FAILS(open_run(&f, dir, NULL), TDM_ERR_NOT_FOUND, "is not a regular file");
    fixture_close(&f);
    alarm(0);
#endif
}

void test_case_monitor_recovery(const test_run *run)
{
    (void)run;
    scratch_root("tdm-monitor-recovery");
    ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    CHECK(test_scenario_devices(ctx, "reference", devs) == 3);
    check_lock();
    check_damaged_newest();
    check_forged_step();
    check_no_fallback();
    check_extra_refuses();
    check_fifos();
    tdm_context_destroy(ctx);
    scratch_remove();
}
