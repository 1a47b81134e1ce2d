/* Internal to the OpenCL backend: its state and the helpers its files share. */
#ifndef TDM_OPENCL_INTERNAL_H
#define TDM_OPENCL_INTERNAL_H

#include "opencl_api.h"

#include "device/backend_api.h"

/* A program cache entry; defined in opencl_program.c. */
typedef struct tdm_opencl_program tdm_opencl_program;

/* One platform that yielded a context: all of its devices share that context, so
 * their buffers can be used and copied on any of them. */
typedef struct tdm_opencl_platform {
    cl_platform_id id;
    cl_context context;
    char name[TDM_DEVICE_NAME_MAX];
    tdm_mutex program_lock;       /* guards programs */
    tdm_opencl_program *programs; /* built programs, per (device, name) */
    /* Oclgrind runs a queue's commands on whichever host thread flushes, waits or
     * reads, and its simulator holds one kernel run per context: two threads doing so
     * at once trip its assertion. On such a platform every call that may run commands
     * or change its memory holds serial_lock (tdm_opencl_serial_begin); other drivers
     * take calls from many threads at once, as OpenCL allows. */
    int serial;
    tdm_mutex serial_lock;
} tdm_opencl_platform;

/* A physical device as discovered, numbered across platforms. */
typedef struct tdm_opencl_physical {
    cl_device_id id;
    tdm_opencl_platform *platform;
} tdm_opencl_physical;

struct tdm_backend {
    tdm_context *ctx;
    const char *opencl_note;        /* where libOpenCL.so.1 was loaded from */
    const char *clblast_note;       /* where CLBlast was loaded from, or why it was not */
    const char *host_blas_note;     /* where OpenBLAS was loaded from, or why it was not */
    const char *host_conv_note;     /* where oneDNN was loaded from, or why it was not */
    tdm_opencl_platform *platforms; /* only those with a context */
    size_t platform_count;
    tdm_opencl_physical *devices;
    size_t device_count;
};

/* The state of an opened device (physical or logical), which its entry points
 * receive. */
typedef struct tdm_opencl_device {
    tdm_device *dev;             /* the core's handle, for its services */
    const tdm_device_desc *desc; /* the core's description, for messages */
    cl_context context;          /* owned by platform */
    cl_device_id device;
    cl_command_queue queue; /* owned: each tdm_device has its own in-order queue */
    tdm_opencl_platform *platform;
    /* Table kernels (opencl_launch.c), created on first use. A cl_kernel holds its
     * arguments, and clSetKernelArg is not thread-safe on one cl_kernel, so each
     * tdm_device has its own, and kernel_lock is held from the first clSetKernelArg to
     * the enqueue. */
    tdm_mutex kernel_lock;
    cl_kernel kernels[TDM_KERNEL_COUNT];
    char build_options[64]; /* for every table kernel's program on this device */
    int host_memory;        /* buffers live in host memory the host may address (opencl_host.c) */
    int host_gemm;          /* gemm runs on the host's BLAS (opencl_host_gemm.c) */
    int host_conv;          /* the implicit convolutions run on oneDNN (opencl_host_conv.c) */
    int profiling;          /* the queue has CL_QUEUE_PROFILING_ENABLE: timestamps */
} tdm_opencl_device;

/* The state of a buffer: the device it was allocated for, the cl_mem, and where the
 * host addresses its memory (NULL: nowhere). */
typedef struct tdm_opencl_buffer {
    tdm_opencl_device *owner;
    cl_mem mem;
    void *host;
} tdm_opencl_buffer;

/* Around calls that may run commands, on platforms whose driver is not thread-safe. */
static inline void tdm_opencl_serial_begin(const tdm_opencl_device *d)
{
    if (d->platform->serial)
        tdm_mutex_lock(&d->platform->serial_lock);
}

static inline void tdm_opencl_serial_end(const tdm_opencl_device *d)
{
    if (d->platform->serial)
        tdm_mutex_unlock(&d->platform->serial_lock);
}

static inline cl_mem tdm_opencl_mem(const tdm_buffer *buf)
{
    return ((const tdm_opencl_buffer *)tdm_backend_buffer_state(buf))->mem;
}

/* opencl_errors.c */

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for codes it does not know. */
const char *tdm_opencl_error_name(cl_int err);

/* The tandem status for a failed call: a negative execution status surfaces as
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and means the device is lost;
 * host or device memory exhaustion is OUT_OF_MEMORY; the rest, CL_OUT_OF_RESOURCES included
 * (drivers also use it for lost devices, but not reliably), is a backend failure. */
tdm_status tdm_opencl_status(cl_int err);

/* Fails with tdm_opencl_status(err) and "<id> '<name>': <call> failed: <error>". */
tdm_status tdm_opencl_fail(const tdm_device *dev, const char *call, cl_int err);

/* pocl_cache.c: points PoCL at a usable kernel cache before the first OpenCL call. */
void tdm_pocl_cache_prepare(const tdm_context *ctx);

/* opencl_describe.c */
void tdm_opencl_describe(const tdm_backend *be, size_t index, tdm_device_desc *desc);

/* opencl_host.c: whether the device's buffers may live in host memory that the host
 * addresses (a CPU driver that uses such memory as the buffer's storage, as a probe
 * confirms); a buffer over tandem's own host memory, freed with the cl_mem; the
 * address the core reads and writes in place. */
int tdm_opencl_probe_host_memory(tdm_opencl_device *d);
cl_mem tdm_opencl_create_in_host_memory(tdm_opencl_device *d, size_t size, void **host,
                                        cl_int *err);
void *tdm_opencl_host_address(tdm_buffer *buf, void *state);
/* A launch's float buffer in slot, at its offset, where the host addresses it. */
float *tdm_opencl_host_floats(const tdm_launch *launch, unsigned slot);
/* Around a call into a host library that splits its work among the cores: one such
 * call at a time in the process. */
void tdm_opencl_host_compute_begin(void);
void tdm_opencl_host_compute_end(void);
/* Enqueues run(args), a copy of size bytes, as a native kernel of dev's queue: a
 * command ordered with the launches around it, reading and writing the launch's
 * buffers where the host addresses them (tdm_opencl_host_floats). The buffers are
 * retained until it completes, as a kernel's are; then finished(context) runs (also
 * when the enqueue fails; finished may be NULL). */
tdm_status tdm_opencl_host_command(tdm_opencl_device *d, void(CL_CALLBACK *run)(void *),
                                   const void *args, size_t size, const tdm_launch *launch,
                                   void (*finished)(void *context), void *context);

/* opencl_device.c */
tdm_status tdm_opencl_open_device(tdm_backend *be, size_t index, tdm_device *dev, void **state,
                                  tdm_backend_traits *traits);
void tdm_opencl_close_device(tdm_device *dev, void *state);
tdm_status tdm_opencl_finish(tdm_device *dev, void *state);

/* opencl_buffer.c */
tdm_status tdm_opencl_buffer_alloc(tdm_buffer *buf, void *device_state, void **state);
void tdm_opencl_buffer_free(tdm_buffer *buf, void *state);
tdm_status tdm_opencl_write(tdm_buffer *buf, void *state, size_t offset, const void *src,
                            size_t size);
tdm_status tdm_opencl_read(tdm_buffer *buf, void *state, size_t offset, void *dst, size_t size);
tdm_status tdm_opencl_fill(tdm_buffer *buf, void *state, size_t offset, const uint32_t *pattern,
                           size_t words, size_t size);
int tdm_opencl_can_copy(const tdm_device *dst, const void *dst_state, const tdm_device *src,
                        const void *src_state);
/* One context, and one cl_device_id (logical devices) or two CPU devices whose
 * buffers live in host memory: nothing migrates between them. */
int tdm_opencl_shares_memory(const tdm_device *a, const void *a_state, const tdm_device *b,
                             const void *b_state);
tdm_status tdm_opencl_copy(tdm_buffer *dst, void *dst_state, size_t dst_offset, tdm_buffer *src,
                           void *src_state, size_t src_offset, size_t size);

/* opencl_event.c */
tdm_status tdm_opencl_event_record(tdm_device *dev, void *state, void **event);
tdm_status tdm_opencl_event_wait(tdm_device *dev, void *state, void *event);
tdm_status tdm_opencl_event_query(tdm_device *dev, void *state, void *event, int *done);
void tdm_opencl_event_release(tdm_device *dev, void *state, void *event);
tdm_status tdm_opencl_timestamp(tdm_device *dev, void *state, uint64_t *device_ns);
tdm_status tdm_opencl_queue_wait(tdm_device *dev, void *state, tdm_device *src, void *src_state,
                                 void *event);

/* opencl_launch.c: the `launch` op, and the release of a device's kernels (at close).
 * tdm_opencl_enqueue runs the table's kernel from its source, `depth` groups deep
 * along dimension 1 (1: a plain launch; gemm_f16 reads it as its slices of k). */
tdm_status tdm_opencl_launch(tdm_device *dev, void *state, const tdm_launch *launch);
tdm_status tdm_opencl_enqueue(tdm_opencl_device *d, const tdm_launch *launch, uint32_t depth);
int tdm_opencl_supports(const tdm_device *dev, const void *state, tdm_kernel kernel);
void tdm_opencl_kernels_release(tdm_opencl_device *d);

/* opencl_gemm.c: gemm, through the host's BLAS on devices that run it (host_gemm),
 * else through CLBlast (a long, narrow product with its k split:
 * opencl_gemm_split.c); whether a device can run gemm at all. gemm_f16 through
 * kernels/gemm_f16.cl, a long, narrow product with its k split by the same rule. */
tdm_status tdm_opencl_gemm(tdm_opencl_device *d, const tdm_launch *launch);
tdm_status tdm_opencl_gemm_f16(tdm_opencl_device *d, const tdm_launch *launch);
int tdm_opencl_gemm_supported(const tdm_opencl_device *d);

/* opencl_clblast.c: gemm through CLBlast, which tdm_opencl_clblast_load loads from
 * libclblast.so.1 once per process (thread-safe): 1 when it is there, else 0 and
 * its gemm is TDM_ERR_UNSUPPORTED. *note (note may be NULL): the file, or why not. */
int tdm_opencl_clblast_load(const char **note);
/* One product, C = alpha op(A) op(B) + beta C (row-major, offsets and leading
 * dimensions in elements), or `batch` of them at once, each operand's next one
 * `stride` elements on. */
typedef struct tdm_opencl_product {
    int trans_a, trans_b;
    uint32_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    cl_mem a, b, c;
    size_t a_off, b_off, c_off, a_stride, b_stride, c_stride, batch;
} tdm_opencl_product;
tdm_status tdm_opencl_clblast_run(tdm_opencl_device *d, const tdm_opencl_product *p);
/* opencl_gemm_split.c: the slices p's k is cut into (0: none), and p so cut, its
 * slices multiplied at once and summed into C (p->c, the buffer c): on CLBlast, or
 * gemm_f16's launch by its own kernel. */
uint32_t tdm_opencl_gemm_slices(const tdm_opencl_device *d, const tdm_opencl_product *p);
tdm_status tdm_opencl_gemm_split(tdm_opencl_device *d, const tdm_opencl_product *p, tdm_buffer *c,
                                 uint32_t slices);
tdm_status tdm_opencl_gemm_f16_split(tdm_opencl_device *d, const tdm_launch *launch,
                                     uint32_t slices);
/* Releases the programs CLBlast keeps (built for the contexts that ran gemm), before
 * tandem releases a context: left to CLBlast's exit handler they would outlive their
 * context, and an application that opens and closes contexts would keep them all. */
void tdm_opencl_clblast_forget_programs(void);

/* opencl_host_gemm.c: gemm as a native kernel calling OpenBLAS's cblas_sgemm
 * (libopenblas.so.0, loaded once per process: *note says from where, or why not).
 * Usable on a CPU device that runs native kernels, unless TDM_CL_GEMM=clblast; it
 * takes launches whose sizes fit CBLAS's int. */
int tdm_opencl_host_gemm_load(const char **note);
int tdm_opencl_host_gemm_usable(cl_device_id id, tdm_device_type type);
int tdm_opencl_host_gemm_takes(const tdm_launch *launch);
tdm_status tdm_opencl_host_gemm(tdm_opencl_device *d, const tdm_launch *launch);

/* opencl_host_conv.c: the implicit convolutions as native kernels calling oneDNN
 * (dnnl_conv.h), which tdm_opencl_host_conv_load loads once per process (*note: from
 * where, or why not). Usable on a device whose gemm runs on the host's BLAS, when
 * oneDNN loads, unless TDM_CL_CONV=lowered; the kernels it runs; a launch of one. */
int tdm_opencl_host_conv_load(const char **note);
int tdm_opencl_host_conv_usable(const tdm_opencl_device *d);
int tdm_opencl_host_conv_kernel(tdm_kernel kernel);
tdm_status tdm_opencl_host_conv(tdm_opencl_device *d, const tdm_launch *launch);

/* opencl_program.c: releases a platform's cached programs (at destroy). */
void tdm_opencl_program_cache_free(tdm_opencl_platform *platform);

#endif
