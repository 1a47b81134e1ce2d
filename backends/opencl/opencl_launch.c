/* Runs a kernel of the table (kernels.def) from its OpenCL C source kernels/NAME.cl,
 * embedded at build time. Arguments are bound generically from the table, in the
 * order every kernels/NAME.cl follows:
 *   the buffers in table order, then one uint element offset per buffer in the same
 *   order, then the uints in table order, then the floats in table order.
 * The `launch` op that picks this or another path is opencl_dispatch.c's. */
#include <stdarg.h>
#include <stdio.h>

#include "device/backend_api.h"
#include "opencl_internal.h"
#include "opencl_program.h"
#include "tandem/nn.h"

/* Text appended to a fixed buffer; `used` passes `size` when it did not fit. */
typedef struct text {
    char *out;
    size_t size, used;
} text;

static void append(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(text *t, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(t->out + t->used, t->used < t->size ? t->size - t->used : 0, fmt, args);
    va_end(args);
    t->used += n >= 0 ? (size_t)n : t->size + 1;
}

/* Buffer b's OpenCL C element type. */
static const char *element_type(const tdm_kernel_info *info, unsigned b)
{
    char type = info->buffers[b].type;
    return type == 'h' ? "half" : type == 'u' ? "uint" : "float";
}

/* The table's word on a kernel, as OpenCL C put before its source: TDM_WG, its
 * work-group size, TDM_KERNEL_NAME (tdm_NAME, for family bodies), and
 * TDM_SIGNATURE, the parameter list that kernels/NAME.cl declares as
 * `kernel void tdm_NAME(TDM_SIGNATURE)`: the buffers (const where only
 * read), one uint element offset per buffer (NAME_off), the uints, the floats, in
 * table order. So a kernel file cannot disagree with the table on its arguments or
 * its work-group size. Each float or half buffer's element type is TDM_TYPE_NAME, by
 * which the prelude's LOAD4, STORE4, LOAD, STORE, LOAD4_AT and STORE4_AT pick their
 * accessor, so that one source serves a kernel and its float16 twin; and, for a
 * kernel with an activation argument, TDM_ACT_<name>, its values (kernel_flags.h).
 * -1 if out cannot hold it. */
static int signature_source(const tdm_kernel_info *info, char *out, size_t size)
{
    const char *name = tdm_kernel_get(info->base)->name;
    text t = {out, size, 0};
    append(&t, "#define TDM_WG %u\n#define TDM_KERNEL_NAME tdm_%s\n", info->wg, name);
#define ACTIVATION(act) append(&t, "#define TDM_ACT_" #act " %uu\n", (unsigned)TDM_ACT_##act);
    if (tdm_kernel_uint_place(info, TDM_UINT_activation) >= 0) {
        TDM_KERNEL_ACTIVATIONS(ACTIVATION)
    }
#undef ACTIVATION
    for (unsigned b = 0; b < info->buffer_count; b++)
        if (info->buffers[b].type != 'u')
            append(&t, "#define TDM_TYPE_%s %s\n", info->buffers[b].name, element_type(info, b));
    append(&t, "#define TDM_SIGNATURE ");
    for (unsigned b = 0; b < info->buffer_count; b++) {
        const tdm_kernel_buffer *kb = &info->buffers[b];
        append(&t, "%sglobal %s%s *%s", b ? ", " : "", kb->written ? "" : "const ",
               element_type(info, b), kb->name);
    }
    for (unsigned b = 0; b < info->buffer_count; b++)
        append(&t, ", uint %s_off", info->buffers[b].name);
    for (unsigned u = 0; u < info->uint_count; u++)
        append(&t, ", uint %s", tdm_kernel_uint_name(info->uints[u]));
    for (unsigned f = 0; f < info->float_count; f++)
        append(&t, ", float %s", info->floats[f].name);
    append(&t, "\n");
    return t.used < size ? 0 : -1;
}

/* Creates the cl_kernel tdm_NAME for the device, building its program first (compiled once
 * per cl_device_id, cached by opencl_program.c), and checks it against the table. A
 * float16 twin is its kernel's source compiled with the twin's signature. */
static tdm_status create_kernel(tdm_opencl_device *d, const tdm_kernel_info *info, cl_kernel *out)
{
    const char *base = tdm_kernel_get(info->base)->name;
    const char *source = tdm_opencl_source_find(base);
    char program_name[96], kernel_name[64];
    cl_program program;
    cl_int err;

    if (!source)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s '%s': kernel '%s' has no OpenCL implementation (kernels/%s.cl)",
                        d->desc->id, d->desc->name, info->name, base);
    snprintf(program_name, sizeof program_name, "kernels/%s.cl%s", base,
             info == tdm_kernel_get(info->base) ? "" : " (float16 activations)");
    snprintf(kernel_name, sizeof kernel_name, "tdm_%s", base);
    char signature[1024];
    if (signature_source(info, signature, sizeof signature) != 0)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: kernel %s's signature is too long", program_name,
                        info->name);
    const char *const sources[] = {signature, tdm_opencl_source_find("prelude"), source};
    tdm_status st =
        tdm_opencl_build_program(d, program_name, sources, 3, d->build_options, &program);
    if (st != TDM_OK)
        return st;
    cl_kernel kernel = clCreateKernel(program, kernel_name, &err);
    if (err != CL_SUCCESS)
        return tdm_fail(tdm_opencl_status(err), "%s '%s': %s: clCreateKernel(%s) failed: %s (%d)",
                        d->desc->id, d->desc->name, program_name, kernel_name,
                        tdm_opencl_error_name(err), (int)err);

    /* The binding contract, checked once: a kernel file out of step with the table
     * would otherwise read garbage arguments. */
    cl_uint args = 0;
    size_t wg_max = 0;
    const cl_uint want = 2 * info->buffer_count + info->uint_count + info->float_count;
    err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL);
    if (err == CL_SUCCESS)
        err = clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg_max,
                                       &wg_max, NULL);
    if (err != CL_SUCCESS)
        st = tdm_fail(tdm_opencl_status(err), "%s '%s': %s: querying kernel %s failed: %s (%d)",
                      d->desc->id, d->desc->name, program_name, kernel_name,
                      tdm_opencl_error_name(err), (int)err);
    else if (args != want)
        st = tdm_fail(TDM_ERR_BACKEND,
                      "%s '%s': %s: %s takes %u arguments, but the kernel table gives it %u "
                      "(%u buffers, %u offsets, %u uints, %u floats)",
                      d->desc->id, d->desc->name, program_name, kernel_name, (unsigned)args,
                      (unsigned)want, info->buffer_count, info->buffer_count, info->uint_count,
                      info->float_count);
    else if (wg_max < info->wg)
        st = tdm_fail(TDM_ERR_UNSUPPORTED,
                      "%s '%s': kernel %s runs at most %zu work-items per group here; it needs %u",
                      d->desc->id, d->desc->name, kernel_name, wg_max, info->wg);
    if (st != TDM_OK) {
        clReleaseKernel(kernel);
        return st;
    }
    *out = kernel;
    return TDM_OK;
}

/* The device's cl_kernel for `kernel`, created on first use. The program is built without
 * the device's kernel_lock, so a first compile does not hold up other launches. */
static tdm_status get_kernel(tdm_opencl_device *d, tdm_kernel kernel, const tdm_kernel_info *info,
                             cl_kernel *out)
{

    tdm_mutex_lock(&d->kernel_lock);
    *out = d->kernels[kernel];
    tdm_mutex_unlock(&d->kernel_lock);
    if (*out)
        return TDM_OK;

    cl_kernel created = NULL;
    tdm_status st = create_kernel(d, info, &created);
    if (st != TDM_OK)
        return st;
    tdm_mutex_lock(&d->kernel_lock);
    if (!d->kernels[kernel])
        d->kernels[kernel] = created;
    else
        clReleaseKernel(created); /* another thread got there first */
    *out = d->kernels[kernel];
    tdm_mutex_unlock(&d->kernel_lock);
    return TDM_OK;
}

/* Binds the launch's arguments to k; the caller holds the device's kernel_lock. */
static cl_int set_args(cl_kernel k, const tdm_kernel_info *info, const tdm_launch *launch)
{
    cl_uint a = 0;
    cl_int err = CL_SUCCESS;

    for (unsigned b = 0; b < info->buffer_count && err == CL_SUCCESS; b++) {
        /* An unused optional input (NULL) is never read: any valid cl_mem will do. */
        const tdm_buffer *buf = launch->buffers[b] ? launch->buffers[b] : launch->buffers[0];
        cl_mem mem = tdm_opencl_mem(buf);
        err = clSetKernelArg(k, a++, sizeof mem, &mem);
    }
    for (unsigned b = 0; b < info->buffer_count && err == CL_SUCCESS; b++) {
        cl_uint offset = launch->buffers[b] ? launch->offsets[b] : 0;
        err = clSetKernelArg(k, a++, sizeof offset, &offset);
    }
    for (unsigned i = 0; i < info->uint_count && err == CL_SUCCESS; i++) {
        cl_uint v = launch->u[i];
        err = clSetKernelArg(k, a++, sizeof v, &v);
    }
    for (unsigned i = 0; i < info->float_count && err == CL_SUCCESS; i++) {
        cl_float v = launch->f[i];
        err = clSetKernelArg(k, a++, sizeof v, &v);
    }
    return err;
}

tdm_status tdm_opencl_enqueue(tdm_opencl_device *d, const tdm_launch *launch, uint32_t depth)
{
    const tdm_kernel_info *info = tdm_kernel_get(launch->kernel);
    if (launch->groups == 0)
        return TDM_OK; /* nothing to do (the core sends at least one group) */
    cl_kernel k;
    tdm_status st = get_kernel(d, launch->kernel, info, &k);
    if (st != TDM_OK)
        return st;

    const size_t local[2] = {info->wg, 1},
                 global[2] = {(size_t)launch->groups * info->wg, depth ? depth : 1};
    const char *call = "clSetKernelArg";
    tdm_mutex_lock(&d->kernel_lock); /* from the first argument to the enqueue */
    cl_int err = set_args(k, info, launch);
    if (err == CL_SUCCESS) {
        call = "clEnqueueNDRangeKernel";
        tdm_opencl_serial_begin(d);
        err = clEnqueueNDRangeKernel(d->queue, k, depth > 1 ? 2 : 1, NULL, global, local, 0, NULL,
                                     NULL);
        tdm_opencl_serial_end(d);
    }
    tdm_mutex_unlock(&d->kernel_lock);
    if (err != CL_SUCCESS)
        return tdm_fail(tdm_opencl_status(err), "%s '%s': kernel %s: %s failed: %s (%d)",
                        d->desc->id, d->desc->name, info->name, call, tdm_opencl_error_name(err),
                        (int)err);
    return TDM_OK;
}

void tdm_opencl_kernels_release(tdm_opencl_device *d)
{
    for (int k = 0; k < TDM_KERNEL_COUNT; k++)
        if (d->kernels[k]) {
            clReleaseKernel(d->kernels[k]);
            d->kernels[k] = NULL;
        }
}
