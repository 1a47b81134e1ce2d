/* The conformance checker: runs every kernel of the table on a device and compares
 * its results with the reference backend's, element by element. */
#ifndef TDM_CONFORMANCE_H
#define TDM_CONFORMANCE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "tandem/tandem.h"

typedef enum conf_data {
    CONF_RANDOM,  /* uniform values in a kernel-appropriate range */
    CONF_INTEGER, /* small integers: every summation order is exact, so linear
                     kernels must match the reference bit for bit */
    CONF_EDGE     /* NaN, infinities, signed zeros, denormals, huge and tiny values */
} conf_data;

/* One call of one kernel: its scalars, its data and where its views start. */
typedef struct conf_case {
    tdm_kernel kernel;
    uint32_t u[TDM_KERNEL_MAX_UINTS];
    float f[TDM_KERNEL_MAX_FLOATS];
    conf_data data;
    /* elements before each buffer's view (even for float16 buffers); views at
     * different offsets cover kernels that move several elements per access */
    uint32_t offset[TDM_KERNEL_MAX_BUFFERS];
    unsigned seed;
    int large; /* a buffer past 128 MiB: lavapipe's binding limit */
    char label[64];
} conf_case;

/* Host copies of a case's buffers: CONF_GUARD elements after every view, and before
 * every written one (more where the view is offset), hold CONF_GUARD_BYTE in each
 * byte of a written buffer, so that a write out of bounds shows. */
#define CONF_GUARD 4
#define CONF_GUARD_BYTE 0xA5

/* The most elements of any buffer in a case of a small set (`tandem conformance
 * --small`: simulators). */
#define CONF_SMALL_ELEMENTS 4096

typedef struct conf_buffers {
    void *host[TDM_KERNEL_MAX_BUFFERS];
    size_t elements[TDM_KERNEL_MAX_BUFFERS]; /* view elements (the kernel's extent) */
    size_t total[TDM_KERNEL_MAX_BUFFERS];    /* with offset and guards */
} conf_buffers;

/* The outcome of a kernel on a device over all its cases. */
typedef struct conf_result {
    int supported; /* 0: the backend lacks the kernel */
    int failed_cases;
    int cases;
    double worst_ulps;   /* largest |got - want| in units of ulp(want), over the
                            elements whose tolerance is ulps: not near zero, where a
                            cancellation leaves a tiny result and its ulp means nothing */
    double worst_ratio;  /* largest |got - want| / allowed, over every element */
    int worst_near_zero; /* the worst_ratio element was near zero: report the ratio */
    char first_failure[256];
    int skipped_cases;    /* past a limit of the device: NOT SUPPORTED, not failed */
    char first_skip[256]; /* why NOT SUPPORTED: the first case past a limit, or why
                             the device cannot run the cell at all */
    double seconds;       /* spent running and checking the cell's cases */
    int ended;            /* CONF_RAN, or how the process running the cell ended */
    char end_detail[96];  /* with CONF_CRASHED or CONF_TIMED_OUT: "SIGSEGV", "after 600 s" */
    int end_case;         /* the case it was running (from 1; 0 where cells have no cases) */
} conf_result;

/* How a cell's run ended: in its results, or with the process that ran it
 * (`tandem conformance` runs its checks in a worker process it can lose). */
enum { CONF_RAN, CONF_CRASHED, CONF_TIMED_OUT };

/* conformance_suite.c: a cell the device cannot run at all, and why. */
void conf_not_supported(conf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* conformance_suite.c: the backend's name of a device ("opencl"). */
const char *conf_backend_name(const tdm_device *dev);

/* conformance_cases.c: the cases of a kernel, into out (at most max); returns the
 * count. `large` adds the > 128 MiB case where the kernel's grid can split. */
size_t conf_cases(tdm_kernel kernel, int large, conf_case *out, size_t max);

/* The bytes of the case's buffer b, its guards included, and the most elements of
 * any of its buffers' views. */
size_t conf_case_buffer_bytes(const conf_case *c, unsigned b);
size_t conf_case_largest_view(const conf_case *c);

/* The case `tandem bench kernels` times: n elements, two inputs for accumulate. */
conf_case conf_perf_case(tdm_kernel kernel, uint32_t n);
/* The case `tandem bench kernels --image` times: an NHWC image {batch, h, w, c}, as
 * many output channels, a k x k window at the stride, TensorFlow's SAME padding. */
conf_case conf_image_perf_case(tdm_kernel kernel, const uint32_t image[4], uint32_t k,
                               uint32_t stride);

/* conformance_data.c: fills the case's input buffers (allocating every buffer). */
int conf_buffers_make(const conf_case *c, conf_buffers *bufs);
void conf_buffers_free(conf_buffers *bufs);
/* A copy with denormal floats flushed to zero, or magnitudes taken. */
int conf_buffers_transform(const conf_case *c, const conf_buffers *in, conf_buffers *out,
                           int flush_denormals, int absolute);

/* conformance_flush.c: the calling thread flushes denormal operands and results
 * until conf_flushing_end(the value returned), where the CPU can
 * (conf_flushing_available); the reference then answers as a flush-to-zero GPU. */
unsigned conf_flushing_begin(void);
void conf_flushing_end(unsigned old);
int conf_flushing_available(void);

/* conformance_run.c: runs the case on dev with the given inputs; the outputs are
 * read back into `out` (a copy of `in` that the kernel updated). */
tdm_status conf_run(tdm_device *dev, const conf_case *c, const conf_buffers *in, conf_buffers *out);

/* A case uploaded to a device, for timing launches of it. */
typedef struct conf_prepared {
    tdm_device *dev;
    tdm_buffer *buffers[TDM_KERNEL_MAX_BUFFERS];
    unsigned buffer_count;
    tdm_kernel_call call;
} conf_prepared;

/* Uploads the case and launches it once to warm up (program builds, first touches). */
tdm_status conf_prepare(tdm_device *dev, const conf_case *c, const conf_buffers *in,
                        conf_prepared *p);
/* One launch, waited for; seconds may be NULL. */
tdm_status conf_launch_timed(conf_prepared *p, double *seconds);
/* `launches` launches enqueued back to back, then one wait for all of them. */
tdm_status conf_launches_timed(conf_prepared *p, unsigned launches, double *seconds);
void conf_release(conf_prepared *p);

/* conformance_compare.c: compares a device's outputs with the reference's. want_ftz
 * (may be NULL) is the reference with denormals flushed, scale the magnitudes
 * (NULL: derived from the inputs). Updates r. */
void conf_compare(const conf_case *c, const conf_buffers *in, const conf_buffers *got,
                  const conf_buffers *want, const conf_buffers *want_ftz, const conf_buffers *scale,
                  conf_result *r);

/* The spacing of floats at |x| (0 for infinities and NaN). */
double conf_ulp(float x);

#endif
