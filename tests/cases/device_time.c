/* Device timestamps (core/device/device_time.c) on the backend's first device: where
 * the backend keeps them (PoCL, lavapipe), a raw timestamp maps onto the host's clock
 * within the calibration's error of the host's readings around it, two raw stamps
 * bracket kernels enqueued between them, and tdm_device_time never goes back; the
 * reference backend keeps none, and its times come from the host's clock.
 *
 *   device_time reference|opencl|vulkan */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "device/device_impl.h"
#include "device/device_time.h"
#include "harness.h"

#define N (1 << 20)
#define KERNELS 50
#define STAMPS 20
/* Beyond the calibration's error: how far CLOCK_MONOTONIC, which NTP slews by at most
 * 500 ppm, may drift from a driver's raw clock over the seconds this case runs. */
#define DRIFT_SECONDS 0.002

/* A raw stamp, mapped; checks it lies within [before, after], give or take. */
static double mapped_stamp(tdm_device *dev, double *before, double *after)
{
    uint64_t ns = 0;
    double t = 0.0, error = 0.0;
    *before = tdm_seconds();
    CHECK_OK(dev->ops->timestamp(dev, dev->impl, &ns));
    *after = tdm_seconds();
    CHECK_OK(tdm_device_time_map(dev, ns, &t, &error));
    CHECK(error >= 0.0 && error < 0.01);
    CHECK(t >= *before - error - DRIFT_SECONDS && t <= *after + error + DRIFT_SECONDS);
    return t;
}

static void check_bracket(tdm_device *dev)
{
    tdm_shape shape = TDM_SHAPE(N);
    tdm_tensor *x = NULL, *y = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &x));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &y));
    CHECK_OK(tdm_op_fill(x, 1.0f));
    CHECK_OK(tdm_op_fill(y, 0.0f));
    double before, after, enqueued;
    double t0 = mapped_stamp(dev, &before, &after);
    enqueued = tdm_seconds(); /* the kernels start after this */
    for (int k = 0; k < KERNELS; k++)
        CHECK_OK(tdm_op_axpy(y, 1.0f, x));
    double t1 = mapped_stamp(dev, &before, &after);
    CHECK(t0 < t1);
    CHECK(t1 >= enqueued - 0.01); /* within mapped_stamp's bound: the kernels ran before */
    float *v = malloc(N * sizeof *v);
    CHECK(v != NULL);
    if (v) {
        CHECK_OK(tdm_tensor_read(y, v, N * sizeof *v));
        CHECK(v[N - 1] == (float)KERNELS);
    }
    free(v);
    tdm_tensor_destroy(x);
    tdm_tensor_destroy(y);
}

/* tdm_device_time: from the wanted clock, inside its call, never going back. */
static void check_times(tdm_device *dev, tdm_time_source want)
{
    double previous = 0.0;
    for (int i = 0; i < STAMPS; i++) {
        double t = 0.0, before = tdm_seconds();
        tdm_time_source source = TDM_TIME_HOST;
        CHECK_OK(tdm_device_time(dev, &t, &source));
        CHECK(source == want);
        CHECK(t >= before && t <= tdm_seconds() && t >= previous);
        previous = t;
    }
}

void test_case_device_time(const test_run *run)
{
    tdm_backend_kind kind = TDM_BACKEND_REFERENCE; /* the runner has checked the name */
    while (strcmp(run->argv[0], tdm_backend_name(kind)) != 0)
        kind = (tdm_backend_kind)(kind + 1);
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(kind));
    tdm_device *dev = test_first_device(ctx, kind);
    int stamps = kind != TDM_BACKEND_REFERENCE;
    CHECK((dev->ops->timestamp != NULL) == stamps);
    if (stamps)
        check_bracket(dev);
    check_times(dev, stamps ? TDM_TIME_DEVICE : TDM_TIME_HOST);
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
}
