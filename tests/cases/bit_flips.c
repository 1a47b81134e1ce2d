/* Every single-bit flip of a real training checkpoint is refused: a checkpoint of
 * the small training run is written by its monitor, then each bit of each byte is
 * flipped in turn, in place, and tdm_checkpoint_open must refuse the file with
 * TDM_ERR_CORRUPT_DATA; a flipped newest checkpoint is never restored. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

static int flip(int fd, size_t at, unsigned bit)
{
    unsigned char b;
    if (pread(fd, &b, 1, (off_t)at) != 1)
        return -1;
    b ^= (unsigned char)(1u << bit);
    return pwrite(fd, &b, 1, (off_t)at) == 1 ? 0 : -1;
}

void test_case_bit_flips(const test_run *run)
{
    (void)run;
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *devs[3];
    CHECK(test_scenario_devices(ctx, "reference", devs) == 3);
    char dir[SCRATCH_PATH], path[SCRATCH_PATH];
    scratch_root("tdm-bit-flips");
    scratch_path(dir, "run", 0);
    fixture f;
    fixture_options o = FIXTURE_OPTIONS_INIT;
    o.checkpoint_dir = dir;
    o.checkpoint_every = 3;
    CHECK_OK(fixture_open(&f, ctx, devs, 3, &o));
    if (f.monitor)
        CHECK_OK(tdm_monitor_run_steps(f.monitor, 6, NULL));
    fixture_close(&f);

    scratch_checkpoint_name(path, dir, 6);
    int fd = open(path, O_RDWR);
    off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
    CHECK(size > 1000);
    size_t flips = 0, accepted = 0;
    for (size_t at = 0; at < (size_t)size; at++)
        for (unsigned bit = 0; bit < 8; bit++) {
            if (flip(fd, at, bit) != 0)
                break;
            tdm_checkpoint *c = NULL;
            tdm_status s = tdm_checkpoint_open(path, &c);
            tdm_checkpoint_close(c);
            flips++;
            if (s != TDM_ERR_CORRUPT_DATA) {
                accepted++;
                fprintf(stderr, "byte %zu bit %u flipped: open returned %s\n", at, bit,
                        tdm_status_str(s));
            }
            CHECK(flip(fd, at, bit) == 0);
        }
    fprintf(stderr,
            "test_bit_flips: %zu single-bit flips of a %lld-byte checkpoint, %zu "
            "accepted\n",
            flips, (long long)size, accepted);
    CHECK(flips == 8 * (size_t)size && accepted == 0);

    /* Flipped and newest: set aside, and the older checkpoint restored. */
    CHECK(flip(fd, (size_t)size / 3, 5) == 0);
    if (fd >= 0)
        close(fd);
    int restored = 0;
    uint64_t step = 0;
    CHECK_OK(fixture_open(&f, ctx, devs, 3, &o));
    if (f.monitor)
        CHECK_OK(tdm_monitor_restore(f.monitor, &restored, &step));
    CHECK(restored && step == 3 && scratch_count(dir, ".damaged") == 1);
    fixture_close(&f);
    tdm_context_destroy(ctx);
    scratch_remove();
}
