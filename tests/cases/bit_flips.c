/* Every single-bit flip of a real training checkpoint is refused: a checkpoint of
 * the small training run is written by its monitor, then each bit of each byte is
 * flipped in turn, in place, and tdm_checkpoint_open must refuse the file with
 * TDM_ERR_CORRUPT_DATA; a flipped newest checkpoint is never restored. */
#include <stdlib.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

/* Flips one bit of the file in place, written through before the next open reads it. */
static int flip(FILE *f, size_t at, unsigned bit)
{
    int b;
    if (fseek(f, (long)at, SEEK_SET) != 0 || (b = fgetc(f)) == EOF)
        return -1;
    b ^= 1 << bit;
    if (fseek(f, (long)at, SEEK_SET) != 0 || fputc(b, f) == EOF || fflush(f) != 0)
        return -1;
    return 0;
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
    FILE *file = fopen(path, "r+b");
    long size = file && fseek(file, 0, SEEK_END) == 0 ? ftell(file) : 0;
    CHECK(size > 1000);
    size_t flips = 0, accepted = 0;
    for (size_t at = 0; at < (size_t)size; at++)
        for (unsigned bit = 0; bit < 8; bit++) {
            if (flip(file, at, bit) != 0)
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
            CHECK(flip(file, at, bit) == 0);
        }
    fprintf(stderr,
            "test_bit_flips: %zu single-bit flips of a %lld-byte checkpoint, %zu "
            "accepted\n",
            flips, (long long)size, accepted);
    CHECK(flips == 8 * (size_t)size && accepted == 0);

    /* Flipped and newest: set aside, and the older checkpoint restored. */
    CHECK(flip(file, (size_t)size / 3, 5) == 0);
    if (file)
        fclose(file);
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
