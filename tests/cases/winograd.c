/* Winograd F(2x2, 3x3) against the direct kernels, on every device of the scenario:
 * the forward and the input gradient over padding 0, 1 and 2 (the input gradient's
 * 2, 1 and 0), sizes odd and even (partial tiles), one channel and several, planes of
 * one page and of several, within a bound on the transforms'
 * rounding scaled by the sum of the terms' magnitudes (the direct convolution of the
 * absolute values); a window Winograd does not compute is refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ops/ops_images.h"
#include "harness.h"

/* |got - want| <= BOUND * scale: the transforms add and subtract up to 16 terms twice
 * over; a wrong plane or tile is off by the order of the scale itself. */
#define BOUND 4e-6

typedef struct conv_shape {
    size_t batch, h, w, c, oc;
    size_t pad; /* each side: 0 VALID, 1 SAME, 2 every window that meets the image */
} conv_shape;

static const conv_shape shapes[] = {
    {1, 4, 4, 1, 1, 1},  {2, 5, 7, 3, 4, 1},    {2, 6, 6, 5, 7, 0},
    {1, 9, 8, 8, 16, 1}, {3, 7, 5, 2, 3, 0},    {1, 3, 3, 4, 2, 0},
    {2, 5, 6, 3, 2, 2},  {2, 18, 17, 8, 12, 1}, /* planes of 1,296 to 1,944 elements: strides past a
                                                   page */
};

static float *random_floats(size_t n, uint32_t *state)
{
    float *v = malloc((n ? n : 1) * sizeof *v);
    CHECK(v != NULL);
    for (size_t i = 0; v && i < n; i++) {
        *state = *state * 1664525u + 1013904223u;
        v[i] = (float)(*state >> 8) * 0x1p-23f - 1.0f;
    }
    return v;
}

static tdm_tensor *tensor_of(tdm_device *dev, const tdm_shape *shape, const float *data)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, shape, &t));
    if (t && data)
        CHECK_OK(tdm_tensor_write(t, data, tdm_tensor_bytes(t)));
    return t;
}

static float *read_all(const tdm_tensor *t)
{
    float *v = malloc(tdm_tensor_bytes(t) + sizeof(float));
    CHECK(v != NULL);
    if (v)
        CHECK_OK(tdm_tensor_read(t, v, tdm_tensor_bytes(t)));
    return v;
}

/* The worst |got - want| / scale over n elements. */
static double worst_ratio(const float *got, const float *want, const float *scale, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - want[i]);
        worst = fmax(worst, err / fmax((double)scale[i], 1e-30));
    }
    return worst;
}

static void absolute(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = fabsf(v[i]);
}

/* One shape on dev: forward and input gradient, each against the direct kernel. */
static void check_shape(tdm_device *dev, const conv_shape *s, uint32_t seed)
{
    tdm_window win = {.height = 3,
                      .width = 3,
                      .stride_h = 1,
                      .stride_w = 1,
                      .pad_top = s->pad,
                      .pad_left = s->pad};
    size_t oh = s->h + 2 * s->pad - 2, ow = s->w + 2 * s->pad - 2;
    tdm_shape xs = TDM_SHAPE(s->batch, s->h, s->w, s->c), ys = TDM_SHAPE(s->batch, oh, ow, s->oc);
    tdm_shape fs = TDM_SHAPE(3, 3, s->c, s->oc);
    size_t nx = tdm_shape_count(&xs), ny = tdm_shape_count(&ys), nf = tdm_shape_count(&fs);
    float *x = random_floats(nx, &seed), *f = random_floats(nf, &seed);
    float *dy = random_floats(ny, &seed);
    tdm_tensor *tx = tensor_of(dev, &xs, x), *tf = tensor_of(dev, &fs, f);
    tdm_tensor *tdy = tensor_of(dev, &ys, dy), *ty = tensor_of(dev, &ys, NULL);
    tdm_tensor *tdx = tensor_of(dev, &xs, NULL);
    float *results[2][3]; /* [forward, input gradient][winograd, direct, scale] */

    CHECK_OK(tdm_conv2d_winograd(ty, tx, tf, &win));
    results[0][0] = read_all(ty);
    CHECK_OK(tdm_conv2d_winograd_grad_input(tdx, tdy, tf, &win));
    results[1][0] = read_all(tdx);
    CHECK_OK(tdm_op_conv2d(ty, tx, tf, &win));
    results[0][1] = read_all(ty);
    CHECK_OK(tdm_op_conv2d_grad_input(tdx, tdy, tf, &win));
    results[1][1] = read_all(tdx);
    absolute(x, nx);
    absolute(f, nf);
    absolute(dy, ny);
    CHECK_OK(tdm_tensor_write(tx, x, nx * sizeof(float)));
    CHECK_OK(tdm_tensor_write(tf, f, nf * sizeof(float)));
    CHECK_OK(tdm_tensor_write(tdy, dy, ny * sizeof(float)));
    CHECK_OK(tdm_op_conv2d(ty, tx, tf, &win));
    results[0][2] = read_all(ty);
    CHECK_OK(tdm_op_conv2d_grad_input(tdx, tdy, tf, &win));
    results[1][2] = read_all(tdx);

    double forward = worst_ratio(results[0][0], results[0][1], results[0][2], ny);
    double input = worst_ratio(results[1][0], results[1][1], results[1][2], nx);
    fprintf(stderr,
            "%zux%zux%zux%zu to %zu, padding %zu: forward %.3g, input gradient %.3g of "
            "the scale\n",
            s->batch, s->h, s->w, s->c, s->oc, s->pad, forward, input);
    CHECK(forward <= BOUND && input <= BOUND);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            free(results[i][j]);
    tdm_tensor_destroy(tdx);
    tdm_tensor_destroy(ty);
    tdm_tensor_destroy(tdy);
    tdm_tensor_destroy(tf);
    tdm_tensor_destroy(tx);
    free(dy);
    free(f);
    free(x);
}

static void check_refusal(tdm_device *dev)
{
    tdm_window win = {.height = 3, .width = 3, .stride_h = 2, .stride_w = 2};
    tdm_tensor *x = tensor_of(dev, &TDM_SHAPE(1, 6, 6, 2), NULL);
    tdm_tensor *y = tensor_of(dev, &TDM_SHAPE(1, 2, 2, 3), NULL);
    tdm_tensor *f = tensor_of(dev, &TDM_SHAPE(3, 3, 2, 3), NULL);
    CHECK_FAILS(tdm_conv2d_winograd(y, x, f, &win), TDM_ERR_INVALID_ARGUMENT,
                "a 3 x 3 window of strides 2 x 2; Winograd F(2x2, 3x3) computes 3 x 3 windows "
                "of stride 1");
    CHECK(!tdm_conv2d_winograd_fits(&win));
    tdm_tensor_destroy(f);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(x);
}

void test_case_winograd(const test_run *run)
{
    tdm_context *ctx = NULL;
    tdm_device *devs[8];
    size_t n = test_scenario_of(run, &ctx, devs);
    for (size_t d = 0; d < n; d++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            check_shape(devs[d], &shapes[i], 77u + (uint32_t)i);
        check_refusal(devs[d]);
    }
}
