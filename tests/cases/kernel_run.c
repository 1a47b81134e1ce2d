/* The kernel table and tdm_kernel_run: every entry parses to something sensible,
 * bad calls are refused with a message naming the argument, and launches split for
 * a small binding limit give the reference's results exactly. */
#include <stdlib.h>
#include <string.h>

#include "conformance_suite.h"
#include "device/device_impl.h"
#include "kernel/kernel_args.h"
#include "harness.h"
#include "ref_kernels.h"

static void check_table(void)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++) {
        const tdm_kernel_info *info = tdm_kernel_get((tdm_kernel)k);
        CHECK(info && info->name[0] && info->buffer_count >= 1 && info->wg >= 1);
        CHECK(tdm_kernel_find(info->name) == (tdm_kernel)k);
        /* Types, extents, flags and uint names are checked as the table compiles; what
         * is left is a buffer nobody reads or writes, and names used twice. */
        for (unsigned b = 0; b < info->buffer_count; b++) {
            const tdm_kernel_buffer *kb = &info->buffers[b];
            CHECK(kb->read || kb->written);
            for (unsigned other = 0; other < b; other++)
                CHECK(strcmp(kb->name, info->buffers[other].name) != 0);
        }
        for (unsigned f = 0; f < info->float_count; f++)
            CHECK(info->floats[f].min <= info->floats[f].max);
        /* The splitter moves u[0] = n (and chunk's u[1]) along. */
        if (info->grid == TDM_GRID_N || info->grid == TDM_GRID_PAIRS ||
            info->grid == TDM_GRID_CHUNKS)
            CHECK(info->uints[0] == TDM_UINT_n);
        if (info->grid == TDM_GRID_CHUNKS)
            CHECK(info->uints[1] == TDM_UINT_chunk);
    }
    CHECK(tdm_kernel_find("no_such_kernel") == TDM_KERNEL_COUNT);
}

/* Whether the kernel marks an activation buffer. */
static int has_activation(const tdm_kernel_info *info)
{
    for (unsigned b = 0; b < info->buffer_count; b++)
        if (info->buffers[b].activation)
            return 1;
    return 0;
}

/* A float16 twin is its kernel with the activations, and only they, in F16; every
 * kernel that marks an activation has exactly one twin. */
static void check_twins(void)
{
    int twins = 0;
    for (int k = 0; k < TDM_KERNEL_COUNT; k++) {
        const tdm_kernel_info *info = tdm_kernel_get((tdm_kernel)k);
        const tdm_kernel_info *base = tdm_kernel_get(info->base);
        int named_twins = 0;
        for (int t = 0; t < TDM_KERNEL_COUNT; t++)
            named_twins += t != k && tdm_kernel_get((tdm_kernel)t)->base == (tdm_kernel)k;
        if (info == base) {
            CHECK(named_twins == has_activation(info));
            continue;
        }
        twins++;
        char name[64];
        snprintf(name, sizeof name, "%s_f16", base->name);
        CHECK(!strcmp(info->name, name) && base->base == info->base);
        CHECK(info->grid == base->grid && info->wg == base->wg &&
              info->buffer_count == base->buffer_count && info->uint_count == base->uint_count &&
              info->float_count == base->float_count);
        for (unsigned b = 0; b < info->buffer_count; b++) {
            const tdm_kernel_buffer *tb = &info->buffers[b], *kb = &base->buffers[b];
            CHECK(!strcmp(tb->name, kb->name) && tb->extent == kb->extent &&
                  tb->written == kb->written && tb->activation == kb->activation);
            CHECK(tb->type == (kb->activation ? 'h' : kb->type));
            CHECK(!kb->activation || kb->type == 'f');
        }
    }
    CHECK(twins > 0);
}

static tdm_kernel_call axpy_call(tdm_buffer *y, tdm_buffer *x, uint32_t n)
{
    tdm_kernel_call c;
    memset(&c, 0, sizeof c);
    c.kernel = TDM_KERNEL_axpy;
    c.views[0] = (tdm_buffer_view){y, 0, n * sizeof(float)};
    c.views[1] = (tdm_buffer_view){x, 0, n * sizeof(float)};
    c.u[0] = n;
    c.f[0] = 2.0f;
    return c;
}

static void check_bad_calls(tdm_device *dev, tdm_device *other)
{
    tdm_buffer *a, *b, *elsewhere;
    CHECK_OK(tdm_buffer_alloc(dev, 4096, &a));
    CHECK_OK(tdm_buffer_alloc(dev, 4096, &b));
    CHECK_OK(tdm_buffer_alloc(other, 4096, &elsewhere));
    tdm_kernel_call c = axpy_call(a, b, 100);
    CHECK_OK(tdm_kernel_run(dev, &c));
    CHECK_FAILS(tdm_kernel_run(NULL, &c), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    c.views[1].buffer = NULL;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "buffer 'x' is NULL");
    c = axpy_call(a, b, 100);
    c.views[1].size = 99 * sizeof(float);
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "holds 99 elements");
    c = axpy_call(a, elsewhere, 100); /* logical devices of one host share memory */
    CHECK_OK(tdm_kernel_run(dev, &c));
    c = axpy_call(a, b, 100);
    c.views[0].offset = 2;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "multiple of 4");
    c = axpy_call(a, b, 100);
    c.kernel = TDM_KERNEL_cast_f32_f16;
    c.views[0].offset = 2; /* one half: float16 views start on an even element */
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "multiple of 4");
    c = axpy_call(a, b, 100);
    c.kernel = TDM_KERNEL_accumulate;
    c.views[2] = c.views[1];
    c.u[1] = 8;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "'inputs' is 8");
    /* The fewest inputs are the kernel's required ones: two for accumulate, one for
     * accumulate_f16. */
    c.u[1] = 1;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT,
                "'inputs' is 1, expected 2 to 7");
    c.kernel = TDM_KERNEL_accumulate_f16;
    c.u[1] = 0;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT,
                "'inputs' is 0, expected 1 to 7");
    c.kernel = TDM_KERNEL_sum;
    c.u[1] = 0;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "'chunk' is 0");
    c.kernel = TDM_KERNEL_momentum;
    c.u[1] = 2;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "'nesterov'");
    c = axpy_call(a, b, 0);
    c.kernel = TDM_KERNEL_gemm;
    c.views[2] = c.views[1];
    c.u[0] = c.u[1] = c.u[2] = 4; /* m = n = k = 4 with lda 3 */
    c.u[3] = 3, c.u[4] = 4, c.u[5] = 4;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "leading dimension");
    const tdm_conv2d_args conv = {.y = {a, 0, 4096},
                                  .x = {b, 0, 4096},
                                  .f = {b, 0, 4096},
                                  .batch = 1,
                                  .h = 3,
                                  .w = 3,
                                  .c = 1,
                                  .oh = 3,
                                  .ow = 3,
                                  .oc = 1,
                                  .kh = 3,
                                  .kw = 3,
                                  .stride_h = 1,
                                  .stride_w = 1,
                                  .pad_top = 1,
                                  .pad_left = 1};
    tdm_conv2d_args bad = conv;
    CHECK_OK(tdm_conv2d_run(dev, &bad));
    bad.stride_w = 0;
    CHECK_FAILS(tdm_conv2d_run(dev, &bad), TDM_ERR_INVALID_ARGUMENT, "a stride is 0");
    bad = conv;
    bad.h = 1u << 31;
    CHECK_FAILS(tdm_conv2d_run(dev, &bad), TDM_ERR_INVALID_ARGUMENT, "past 2^31");
    bad = conv; /* batch * oh * ow * oc past 2^64: the extent saturates, never wraps */
    bad.batch = bad.c = UINT32_MAX;
    bad.h = bad.w = bad.oh = bad.ow = 1u << 29;
    CHECK_FAILS(tdm_conv2d_run(dev, &bad), TDM_ERR_INVALID_ARGUMENT,
                "the call needs 18446744073709551615");
    c.kernel = TDM_KERNEL_COUNT;
    CHECK_FAILS(tdm_kernel_run(dev, &c), TDM_ERR_INVALID_ARGUMENT, "no kernel");
}

/* sum over chunks of 10 on a device binding 256 bytes (pieces of 6 chunks) must give
 * the reference's partials bit for bit; a chunk larger than the limit is refused. */
static void check_chunked_split(tdm_device *ref, tdm_device *small)
{
    float x[1000], want[100], got[100];
    for (int i = 0; i < 1000; i++)
        x[i] = (float)((i * 7919) % 1000) / 37.0f - 13.0f;
    tdm_device *devs[2] = {ref, small};
    float *outs[2] = {want, got};
    for (int d = 0; d < 2; d++) {
        tdm_buffer *in, *out;
        CHECK_OK(tdm_buffer_alloc(devs[d], sizeof x, &in));
        CHECK_OK(tdm_buffer_alloc(devs[d], sizeof want, &out));
        CHECK_OK(tdm_buffer_write(in, 0, x, sizeof x));
        tdm_kernel_call c = axpy_call(out, in, 1000);
        c.kernel = TDM_KERNEL_sum;
        c.views[0].size = sizeof want;
        c.u[1] = 10;
        CHECK_OK(tdm_kernel_run(devs[d], &c));
        CHECK_OK(tdm_buffer_read(out, 0, outs[d], sizeof want));
        if (d == 1) {
            c.u[1] = 100; /* 400 bytes: no piece can hold a chunk */
            CHECK_FAILS(tdm_kernel_run(small, &c), TDM_ERR_UNSUPPORTED, "does not fit");
        }
    }
    CHECK(memcmp(want, got, sizeof want) == 0);
}

/* A logical reference device that binds 256 bytes at once: elementwise kernels split
 * into many pieces; row and tile kernels past the limit are refused. */
static void check_splitting(tdm_device *ref, tdm_device *small)
{
    small->traits.max_binding_bytes = 256;
    check_chunked_split(ref, small);
    tdm_device *devices[1] = {small};
    conf_suite suite = {.reference = ref, .devices = devices, .device_count = 1};
    for (int k = 0; k < TDM_KERNEL_COUNT; k++) {
        const tdm_kernel_info *info = tdm_kernel_get((tdm_kernel)k);
        conf_result r;
        if (info->grid != TDM_GRID_N && info->grid != TDM_GRID_PAIRS)
            continue;
        conf_suite_run_kernel(&suite, (tdm_kernel)k, &r);
        if (r.failed_cases)
            fprintf(stderr, "split %s: %s\n", info->name, r.first_failure);
        CHECK(r.supported && r.cases > 0 && r.failed_cases == 0);
    }
    tdm_buffer *a, *b;
    CHECK_OK(tdm_buffer_alloc(small, 4096, &a));
    CHECK_OK(tdm_buffer_alloc(small, 4096, &b));
    tdm_kernel_call c = axpy_call(a, b, 100); /* x: a 10 x 10 matrix, 400 bytes */
    c.kernel = TDM_KERNEL_sum_axis0;
    c.u[0] = 10, c.u[1] = 10;
    CHECK_FAILS(tdm_kernel_run(small, &c), TDM_ERR_UNSUPPORTED, "binds at once");
}

/* conv2d_grad_filter launched in pieces (whole images; output rows of one image, the
 * first piece starting in the padding) must give, bit for bit, what one pass of the
 * reference kernel over the whole sum gives. */
static void check_filter_gradient_pieces(tdm_device *dev)
{
    dev->traits.max_loop_iterations = TDM_KERNEL_LOOP_BUDGET; /* as lavapipe's: pieces */
    /* batch, h, w, c, oh, ow, oc, kh, kw, stride_h, stride_w, pad_top, pad_left */
    static const uint32_t shapes[][13] = {
        {20, 20, 20, 2, 20, 20, 3, 3, 3, 1, 1, 1, 1},     /* 421 iterations an image */
        {2, 131, 150, 1, 66, 75, 2, 5, 4, 2, 2, 2, 1},    /* 76 per row of outputs */
        {1, 40, 3000, 1, 40, 3000, 1, 3, 1, 1, 1, 1, 0}}; /* one row per piece */
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const uint32_t *u = shapes[k];
        size_t nx = (size_t)u[0] * u[1] * u[2] * u[3], ny = (size_t)u[0] * u[4] * u[5] * u[6];
        size_t nf = (size_t)u[7] * u[8] * u[3] * u[6];
        float *x = malloc(nx * sizeof *x), *dy = malloc(ny * sizeof *dy);
        float *want = malloc(nf * sizeof *want), *got = malloc(nf * sizeof *got);
        CHECK(x && dy && want && got);
        for (size_t i = 0; i < nx; i++)
            x[i] = (float)((i * 7919) % 1999) / 999.0f - 1.0f;
        for (size_t i = 0; i < ny; i++)
            dy[i] = (float)((i * 104729) % 2003) / 1001.0f - 1.0f;
        for (size_t i = 0; i < nf; i++)
            want[i] = (float)i / 7.0f;
        tdm_buffer *bx, *bdy, *bdf;
        CHECK_OK(tdm_buffer_alloc(dev, nx * sizeof *x, &bx));
        CHECK_OK(tdm_buffer_alloc(dev, ny * sizeof *dy, &bdy));
        CHECK_OK(tdm_buffer_alloc(dev, nf * sizeof *want, &bdf));
        CHECK_OK(tdm_buffer_write(bx, 0, x, nx * sizeof *x));
        CHECK_OK(tdm_buffer_write(bdy, 0, dy, ny * sizeof *dy));
        CHECK_OK(tdm_buffer_write(bdf, 0, want, nf * sizeof *want));
        const tdm_conv2d_grad_filter_args args = {{bdf, 0, nf * sizeof *want},
                                                  {bx, 0, nx * sizeof *x},
                                                  {bdy, 0, ny * sizeof *dy},
                                                  u[0],
                                                  u[1],
                                                  u[2],
                                                  u[3],
                                                  u[4],
                                                  u[5],
                                                  u[6],
                                                  u[7],
                                                  u[8],
                                                  u[9],
                                                  u[10],
                                                  u[11],
                                                  u[12]};
        CHECK_OK(tdm_conv2d_grad_filter_run(dev, &args));
        CHECK_OK(tdm_buffer_read(bdf, 0, got, nf * sizeof *got));
        const ref_conv2d_grad_filter_args whole = {want, x,     dy,    u[0], u[1], u[2],
                                                   u[3], u[4],  u[5],  u[6], u[7], u[8],
                                                   u[9], u[10], u[11], u[12]};
        ref_conv2d_grad_filter(&whole);
        CHECK(memcmp(want, got, nf * sizeof *got) == 0);
        tdm_buffer_free(bx);
        tdm_buffer_free(bdy);
        tdm_buffer_free(bdf);
        free(x), free(dy), free(want), free(got);
    }
    dev->traits.max_loop_iterations = 0;
}

/* gather_rows_grad launched in pieces of rows (9001 rows: three pieces) on a device
 * whose driver ends long loops early, every view at an offset, must give bit for bit
 * what one pass of the reference kernel gives; elsewhere it is one launch. */
static void check_gather_gradient_pieces(tdm_device *dev)
{
    enum { ROWS = 9001, COLS = 3, SRC = 5, AT = 7 };
    const size_t ndx = AT + SRC * COLS, ndy = AT + ROWS * COLS, nidx = AT + ROWS;
    float *dy = malloc(ndy * sizeof *dy), *want = malloc(ndx * sizeof *want);
    float *got = malloc(ndx * sizeof *got);
    uint32_t *idx = malloc(nidx * sizeof *idx);
    CHECK(dy && want && got && idx);
    for (size_t i = 0; i < ndy; i++)
        dy[i] = (float)((i * 7919) % 1999) / 999.0f - 1.0f;
    for (size_t i = 0; i < nidx; i++)
        idx[i] = (uint32_t)(i * 13 % (SRC + 1)); /* SRC: past the source, adds nothing */
    for (size_t i = 0; i < ndx; i++)
        want[i] = (float)i / 7.0f;
    tdm_buffer *bdx, *bdy, *bidx;
    CHECK_OK(tdm_buffer_alloc(dev, ndx * sizeof *want, &bdx));
    CHECK_OK(tdm_buffer_alloc(dev, ndy * sizeof *dy, &bdy));
    CHECK_OK(tdm_buffer_alloc(dev, nidx * sizeof *idx, &bidx));
    CHECK_OK(tdm_buffer_write(bdx, 0, want, ndx * sizeof *want));
    CHECK_OK(tdm_buffer_write(bdy, 0, dy, ndy * sizeof *dy));
    CHECK_OK(tdm_buffer_write(bidx, 0, idx, nidx * sizeof *idx));
    const tdm_gather_rows_grad_args args = {{bdx, AT * 4, (ndx - AT) * 4},
                                            {bdy, AT * 4, (ndy - AT) * 4},
                                            {bidx, AT * 4, (nidx - AT) * 4},
                                            ROWS,
                                            COLS,
                                            SRC};
    const ref_gather_rows_grad_args whole = {want + AT, dy + AT, idx + AT, ROWS, COLS, SRC};
    ref_gather_rows_grad(&whole);
    for (uint32_t budget = 0; budget <= TDM_KERNEL_LOOP_BUDGET; budget += TDM_KERNEL_LOOP_BUDGET) {
        for (size_t i = 0; i < ndx; i++)
            got[i] = (float)i / 7.0f;
        CHECK_OK(tdm_buffer_write(bdx, 0, got, ndx * sizeof *got));
        dev->traits.max_loop_iterations = budget;
        tdm_device_counters before = TDM_DEVICE_COUNTERS_INIT, after = TDM_DEVICE_COUNTERS_INIT;
        CHECK_OK(tdm_device_read_counters(dev, &before));
        CHECK_OK(tdm_gather_rows_grad_run(dev, &args));
        CHECK_OK(tdm_device_read_counters(dev, &after));
        /* each piece counts */
        CHECK(after.kernel_launches - before.kernel_launches == (budget ? 3 : 1));
        CHECK_OK(tdm_buffer_read(bdx, 0, got, ndx * sizeof *got));
        CHECK(memcmp(want, got, ndx * sizeof *got) == 0);
    }
    dev->traits.max_loop_iterations = 0;
    tdm_buffer_free(bidx);
    tdm_buffer_free(bdy);
    tdm_buffer_free(bdx);
    free(dy), free(want), free(got), free(idx);
}

/* global_avg_pool launched in pieces of rows (every row of images taller than a
 * piece, and a middle range of rows continuing a given sum), every view at an offset,
 * must give bit for bit what one pass of the reference kernel gives. On a device whose
 * driver ends long loops early, a row longer than the budget is refused; elsewhere it
 * runs, every row in one launch. */
static void check_global_pool_pieces(tdm_device *dev)
{
    dev->traits.max_loop_iterations = TDM_KERNEL_LOOP_BUDGET;       /* as lavapipe's: pieces */
    enum { B = 2, H = 300, W = 50, C = 3, AT = 5 };          /* 78 rows of 51 iterations a piece */
    static const uint32_t ranges[][2] = {{0, H}, {17, 200}}; /* row0, rows */
    const size_t nx = AT + (size_t)B * H * W * C, ny = AT + B * C;
    float *x = malloc(nx * sizeof *x), want[2][AT + B * C], got[2][AT + B * C];
    CHECK(x != NULL);
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)((i * 7919) % 1999) / 999.0f - 1.0f;
    tdm_buffer *bx, *by, *bsum;
    CHECK_OK(tdm_buffer_alloc(dev, nx * sizeof *x, &bx));
    CHECK_OK(tdm_buffer_alloc(dev, ny * sizeof(float), &by));
    CHECK_OK(tdm_buffer_alloc(dev, ny * sizeof(float), &bsum));
    CHECK_OK(tdm_buffer_write(bx, 0, x, nx * sizeof *x));
    for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
        for (size_t i = 0; i < ny; i++)
            want[0][i] = -1.0f, want[1][i] = (float)i / 7.0f; /* y, and the sum to continue */
        CHECK_OK(tdm_buffer_write(by, 0, want[0], sizeof want[0]));
        CHECK_OK(tdm_buffer_write(bsum, 0, want[1], sizeof want[1]));
        const tdm_global_avg_pool_args args = {{by, AT * 4, B * C * 4},
                                               {bx, AT * 4, (nx - AT) * 4},
                                               {bsum, AT * 4, B * C * 4},
                                               B,
                                               H,
                                               W,
                                               C,
                                               ranges[k][0],
                                               ranges[k][1]};
        CHECK_OK(tdm_global_avg_pool_run(dev, &args));
        CHECK_OK(tdm_buffer_read(by, 0, got[0], sizeof got[0]));
        CHECK_OK(tdm_buffer_read(bsum, 0, got[1], sizeof got[1]));
        const ref_global_avg_pool_args whole = {want[0] + AT, x + AT,      want[1] + AT, B, H, W, C,
                                                ranges[k][0], ranges[k][1]};
        ref_global_avg_pool(&whole);
        CHECK(memcmp(want, got, sizeof got) == 0);
    }
    tdm_global_avg_pool_args wide = {{by, 0, 4}, {bx, 0, 3999 * 4}, {bsum, 0, 4}, 1, 1, 3998, 1, 0,
                                     1};
    CHECK_FAILS(tdm_global_avg_pool_run(dev, &(tdm_global_avg_pool_args){.h = 2, .rows = 3}),
                TDM_ERR_INVALID_ARGUMENT, "rows 0 .. 3 of an image of 2 rows");
    dev->traits.max_loop_iterations = TDM_KERNEL_LOOP_BUDGET;
    CHECK_OK(tdm_global_avg_pool_run(dev, &wide)); /* 3999 iterations a row */
    wide.w = 3999;
    CHECK_FAILS(tdm_global_avg_pool_run(dev, &wide), TDM_ERR_UNSUPPORTED, "rows of 3999 columns");
    dev->traits.max_loop_iterations = 0;
    CHECK_OK(tdm_global_avg_pool_run(dev, &wide));
    tdm_buffer_free(bsum);
    tdm_buffer_free(by);
    tdm_buffer_free(bx);
    free(x);
}

/* On a device whose driver ends long loops early, a convolution whose window loops
 * past the budget is refused, one within it runs, and a filter gradient of any length
 * runs in pieces; so is a column sum over too many rows (lavapipe summed 70000 ones to
 * 65535), and a row whose loops over its columns add up past the limit. */
static void check_loop_budget(tdm_device *dev)
{
    dev->traits.max_loop_iterations = TDM_KERNEL_LOOP_BUDGET;
    tdm_buffer *a, *b;
    CHECK_OK(tdm_buffer_alloc(dev, 4 << 20, &a));
    CHECK_OK(tdm_buffer_alloc(dev, 4 << 20, &b));
    tdm_conv2d_args conv = {.y = {a, 0, 4 << 20},
                            .x = {b, 0, 4 << 20},
                            .f = {b, 0, 4 << 20},
                            .batch = 1,
                            .h = 3,
                            .w = 3,
                            .c = 400,
                            .oh = 3,
                            .ow = 3,
                            .oc = 4,
                            .kh = 3,
                            .kw = 3,
                            .stride_h = 1,
                            .stride_w = 1,
                            .pad_top = 1,
                            .pad_left = 1};
    CHECK_OK(tdm_conv2d_run(dev, &conv)); /* 3 * (1 + 3 * 401) = 3612 a window */
    conv.c = 500;
    CHECK_FAILS(tdm_conv2d_run(dev, &conv), TDM_ERR_UNSUPPORTED, "loop iterations an invocation");
    const tdm_conv2d_grad_filter_args filter = {.df = {a, 0, 4 << 20},
                                                .x = {b, 0, 4 << 20},
                                                .dy = {b, 0, 4 << 20},
                                                .batch = 2,
                                                .h = 300,
                                                .w = 300,
                                                .c = 1,
                                                .oh = 300,
                                                .ow = 300,
                                                .oc = 1,
                                                .kh = 3,
                                                .kw = 3,
                                                .stride_h = 1,
                                                .stride_w = 1,
                                                .pad_top = 1,
                                                .pad_left = 1};
    CHECK_OK(tdm_conv2d_grad_filter_run(dev, &filter));
    tdm_sum_axis0_args column = {.out = {a, 0, 16}, .x = {b, 0, 4 << 20}, .rows = 3000, .cols = 4};
    CHECK_OK(tdm_sum_axis0_run(dev, &column));
    column.rows = 70000;
    CHECK_FAILS(tdm_sum_axis0_run(dev, &column), TDM_ERR_UNSUPPORTED,
                "loop iterations a work-group");
    /* three loops over a row's columns: counted together */
    tdm_layer_norm_args norm = {.y = {a, 0, 2 << 20},
                                .mean = {a, 2 << 20, 16},
                                .inv_std = {a, (2 << 20) + 16, 16},
                                .x = {b, 0, 4 << 20},
                                .gamma = {b, 0, 4 << 20},
                                .beta = {b, 0, 4 << 20},
                                .rows = 1,
                                .cols = 21000,
                                .inv_cols = 1.0f / 21000,
                                .epsilon = 1e-3f};
    CHECK_OK(tdm_layer_norm_run(dev, &norm));
    norm.cols = 22000;
    CHECK_FAILS(tdm_layer_norm_run(dev, &norm), TDM_ERR_UNSUPPORTED,
                "loop iterations a work-group");
    tdm_softmax_xent_args xent = {.loss = {a, 0, 16},
                                  .dlogits = {a, 16, 4 << 19},
                                  .logits = {b, 0, 4 << 20},
                                  .labels = {b, 0, 16},
                                  .rows = 1,
                                  .cols = 22000,
                                  .grad_scale = 1.0f};
    CHECK_FAILS(tdm_softmax_xent_run(dev, &xent), TDM_ERR_UNSUPPORTED,
                "loop iterations a work-group");
    /* max_pool2d_grad: windows that tile the image are counted by their cells (the
     * gather's count for 40 x 40 windows passes the budget), and by the windows each
     * item takes where padding makes windows outnumber dx's elements; float16 twins
     * are counted too */
    tdm_max_pool2d_grad_args pool = {.dx = {a, 0, 4 << 20},
                                     .dy = {b, 0, 4 << 20},
                                     .x = {b, 0, 4 << 20},
                                     .batch = 1,
                                     .h = 80,
                                     .w = 80,
                                     .c = 1,
                                     .oh = 2,
                                     .ow = 2,
                                     .kh = 40,
                                     .kw = 40,
                                     .stride_h = 40,
                                     .stride_w = 40};
    CHECK_OK(tdm_max_pool2d_grad_run(dev, &pool));
    pool.h = pool.w = 2;
    pool.oh = pool.ow = 200;
    pool.kh = pool.kw = pool.stride_h = pool.stride_w = 1;
    pool.pad_top = pool.pad_left = 100;
    CHECK_FAILS(tdm_max_pool2d_grad_run(dev, &pool), TDM_ERR_UNSUPPORTED,
                "loop iterations an invocation");
    pool.h = pool.w = 600;
    pool.oh = pool.ow = 585; /* overlapping windows of 16 x 16 */
    pool.kh = pool.kw = 16;
    pool.pad_top = pool.pad_left = 0;
    CHECK_FAILS(tdm_kernel_run_as(dev, tdm_max_pool2d_grad_call(&pool), TDM_F16),
                TDM_ERR_UNSUPPORTED, "loop iterations an invocation");
    tdm_buffer_free(a);
    tdm_buffer_free(b);
    dev->traits.max_loop_iterations = 0;
}

void test_case_kernel_run(const test_run *run)
{
    (void)run;
    check_table();
    check_twins();
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *ref, *pair[2];
    CHECK_OK(tdm_context_device(ctx, 0, &ref));
    CHECK_OK(tdm_device_split(ref, 2, pair));
    check_bad_calls(pair[0], pair[1]);
    check_splitting(ref, pair[1]);
    check_filter_gradient_pieces(ref);
    check_gather_gradient_pieces(ref);
    check_global_pool_pieces(ref);
    tdm_device_counters bad = {.size = sizeof bad + 8};
    CHECK_FAILS(tdm_device_read_counters(ref, &bad), TDM_ERR_INVALID_ARGUMENT, "size field is");
    CHECK_FAILS(tdm_device_read_counters(NULL, &bad), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    check_loop_budget(pair[0]);
    tdm_context_destroy(ctx);
}
