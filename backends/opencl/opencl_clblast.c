/* gemm through CLBlast, on devices without the host's BLAS (opencl_gemm.c chooses).
 * CLBlast's kernels skip reading C when beta == 0, so NaN in C's old contents does not
 * propagate (checked with CLBlast 1.5.3 on both its direct and its indirect path; the
 * conformance tool checks it on every device). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_internal.h"

#ifdef TDM_HAVE_CLBLAST
#include <clblast_c.h>

#include "clblast_tuning.h"

static tdm_library clblast = TDM_LIBRARY_INIT("CLBlast");
static __typeof__(CLBlastSgemm) *clblast_sgemm;
static __typeof__(CLBlastSgemmStridedBatched) *clblast_sgemm_batched;
static __typeof__(CLBlastOverrideParameters) *clblast_override;
static __typeof__(CLBlastClearCache) *clblast_clear_cache;

/* Replicas call from their own threads; concurrent first calls (compiling and
 * caching a kernel) failed now and then with CLBlastUnexpectedError, so calls are
 * serialised. They only enqueue: the GEMMs themselves still overlap. */
static tdm_mutex clblast_lock = TDM_MUTEX_INIT;

static int resolve(tdm_library *lib)
{
    int found = 1;
    TDM_LIBRARY_FETCH(lib, clblast_sgemm, "CLBlastSgemm", found);
    TDM_LIBRARY_FETCH(lib, clblast_sgemm_batched, "CLBlastSgemmStridedBatched", found);
    TDM_LIBRARY_FETCH(lib, clblast_override, "CLBlastOverrideParameters", found);
    TDM_LIBRARY_FETCH(lib, clblast_clear_cache, "CLBlastClearCache", found);
    return found;
}

int tdm_opencl_clblast_load(const char **note)
{
    int loaded = tdm_library_load(&clblast, resolve);
    if (note)
        *note = clblast.note;
    return loaded;
}

/* The name of a status code of CLBlast's own; OpenCL's codes are the same as theirs. */
static const char *clblast_error_name(CLBlastStatusCode s)
{
    switch (s) {
    case CLBlastNotImplemented: return "CLBlastNotImplemented";
    case CLBlastInvalidMatrixA: return "CLBlastInvalidMatrixA";
    case CLBlastInvalidMatrixB: return "CLBlastInvalidMatrixB";
    case CLBlastInvalidMatrixC: return "CLBlastInvalidMatrixC";
    case CLBlastInvalidDimension: return "CLBlastInvalidDimension";
    case CLBlastInvalidLeadDimA: return "CLBlastInvalidLeadDimA";
    case CLBlastInvalidLeadDimB: return "CLBlastInvalidLeadDimB";
    case CLBlastInvalidLeadDimC: return "CLBlastInvalidLeadDimC";
    case CLBlastInsufficientMemoryA: return "CLBlastInsufficientMemoryA";
    case CLBlastInsufficientMemoryB: return "CLBlastInsufficientMemoryB";
    case CLBlastInsufficientMemoryC: return "CLBlastInsufficientMemoryC";
    case CLBlastInsufficientMemoryTemp: return "CLBlastInsufficientMemoryTemp";
    case CLBlastInvalidLocalMemUsage: return "CLBlastInvalidLocalMemUsage";
    case CLBlastDatabaseError: return "CLBlastDatabaseError";
    case CLBlastUnknownError: return "CLBlastUnknownError";
    case CLBlastUnexpectedError: return "CLBlastUnexpectedError";
    default: return (int)s > -1000 ? tdm_opencl_error_name((cl_int)s) : "CLBlast error";
    }
}

static tdm_status clblast_status(CLBlastStatusCode s)
{
    switch (s) {
    case CLBlastSuccess: return TDM_OK;
    case CLBlastNotImplemented:
    case CLBlastInvalidLocalMemUsage: /* the device has too little local memory */
        return TDM_ERR_UNSUPPORTED;
    case CLBlastInvalidDimension: /* the core checked sizes and extents: should not occur */
    case CLBlastInvalidLeadDimA:
    case CLBlastInvalidLeadDimB:
    case CLBlastInvalidLeadDimC:
    case CLBlastInsufficientMemoryA:
    case CLBlastInsufficientMemoryB:
    case CLBlastInsufficientMemoryC: return TDM_ERR_INVALID_ARGUMENT;
    case CLBlastTempBufferAllocFailure:
    case CLBlastOpenCLOutOfHostMemory:
    case CLBlastInsufficientMemoryTemp: return TDM_ERR_OUT_OF_MEMORY;
    default: return (int)s > -1000 ? tdm_opencl_status((cl_int)s) : TDM_ERR_BACKEND;
    }
}

/* Before a physical device's first gemm (logical devices share theirs), the shipped
 * parameters for it, if any. A set CLBlast refuses leaves its defaults, with a
 * warning: gemm still runs. Called with clblast_lock held. */
#define TUNED_MAX 64
static void apply_tuning(const tdm_opencl_device *d)
{
    static cl_device_id tuned[TUNED_MAX];
    static size_t tuned_count;
    for (size_t i = 0; i < tuned_count; i++)
        if (tuned[i] == d->device)
            return;
    if (tuned_count < TUNED_MAX)
        tuned[tuned_count++] = d->device;
    const char *setting = getenv("TDM_CLBLAST_TUNING");
    if (setting && !strcmp(setting, "off"))
        return; /* CLBlast's own defaults, to measure what the parameters give */
    size_t count;
    const tdm_clblast_parameters *p = tdm_clblast_tuning(d->desc, &count);
    for (; count > 0; p++, count--) {
        const char *names[TDM_CLBLAST_MAX_PARAMETERS]; /* CLBlast takes them non-const */
        memcpy(names, p->names, sizeof names);
        CLBlastStatusCode s = clblast_override(d->device, p->kernel, CLBlastPrecisionSingle,
                                               p->count, names, p->values);
        if (s != CLBlastSuccess)
            tdm_log(tdm_backend_device_context(d->dev), TDM_LOG_WARN,
                    "%s '%s': CLBlast refused tandem's %s parameters (%s, %d): its defaults stay",
                    d->desc->id, d->desc->name, p->kernel, clblast_error_name(s), (int)s);
    }
}

tdm_status tdm_opencl_clblast_run(tdm_opencl_device *d, const tdm_opencl_product *p)
{
    const char *why;
    if (!tdm_opencl_clblast_load(&why))
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s': gemm on OpenCL needs CLBlast: %s",
                        d->desc->id, d->desc->name, why);

    cl_command_queue queue = d->queue;
    const CLBlastTranspose ta = p->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastTranspose tb = p->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
    CLBlastStatusCode s;
    tdm_mutex_lock(&clblast_lock);
    apply_tuning(d);
    tdm_opencl_serial_begin(d);
    if (p->batch == 1)
        s = clblast_sgemm(CLBlastLayoutRowMajor, ta, tb, p->m, p->n, p->k, p->alpha, p->a, p->a_off,
                          p->lda, p->b, p->b_off, p->ldb, p->beta, p->c, p->c_off, p->ldc, &queue,
                          NULL);
    else
        s = clblast_sgemm_batched(CLBlastLayoutRowMajor, ta, tb, p->m, p->n, p->k, p->alpha, p->a,
                                  p->a_off, p->lda, p->a_stride, p->b, p->b_off, p->ldb,
                                  p->b_stride, p->beta, p->c, p->c_off, p->ldc, p->c_stride,
                                  p->batch, &queue, NULL);
    tdm_opencl_serial_end(d);
    tdm_mutex_unlock(&clblast_lock);
    if (s != CLBlastSuccess)
        return tdm_fail(clblast_status(s),
                        "%s '%s': gemm (m %u, n %u, k %u, %zu at once): %s failed: %s (%d)",
                        d->desc->id, d->desc->name, p->m, p->n, p->k, p->batch,
                        p->batch == 1 ? "CLBlastSgemm" : "CLBlastSgemmStridedBatched",
                        clblast_error_name(s), (int)s);
    return TDM_OK;
}

/* CLBlast's cache has no per-context clear: this drops every context's programs, so
 * another tandem context alive at the same time only compiles its gemm kernels again
 * on its next call. */
void tdm_opencl_clblast_forget_programs(void)
{
    if (!tdm_opencl_clblast_load(NULL))
        return;
    tdm_mutex_lock(&clblast_lock);
    clblast_clear_cache();
    tdm_mutex_unlock(&clblast_lock);
}

#else

int tdm_opencl_clblast_load(const char **note)
{
    if (note)
        *note = "this build of tandem has no CLBlast (install libclblast-dev and reconfigure)";
    return 0;
}

tdm_status tdm_opencl_clblast_run(tdm_opencl_device *d, const tdm_opencl_product *p)
{
    (void)p;
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s '%s': gemm on OpenCL needs CLBlast, which this build of tandem lacks "
                    "(install libclblast-dev and reconfigure)",
                    d->desc->id, d->desc->name);
}

void tdm_opencl_clblast_forget_programs(void)
{
}

#endif
