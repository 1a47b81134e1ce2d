/* The implicit convolutions on an OpenCL CPU device, by oneDNN in the device's queue
 * (dnnl_conv.h), as gemm runs on OpenBLAS there (opencl_host_gemm.c): a native
 * kernel, ordered with every launch around it, reading and writing the buffers where
 * they live in host memory. A pass's primitives are made when it is enqueued, so a
 * shape oneDNN does not take fails the launch with oneDNN's reason. oneDNN is
 * optional: without it, or with TDM_CL_CONV=lowered, the device has no implicit
 * kernels and convolutions run lowered (im2col and gemm). */
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "opencl_internal.h"

int tdm_opencl_host_conv_usable(const tdm_opencl_device *d)
{
    const char *choice = getenv("TDM_CL_CONV");
    if (choice && !strcmp(choice, "lowered"))
        return 0; /* to measure or test the lowered way on a CPU device */
    return d->host_gemm && tdm_opencl_host_conv_load(NULL);
}

int tdm_opencl_host_conv_kernel(tdm_kernel kernel)
{
    return kernel == TDM_KERNEL_conv2d_implicit || kernel == TDM_KERNEL_conv2d_implicit_bias_relu ||
           kernel == TDM_KERNEL_conv2d_implicit_grad_input ||
           kernel == TDM_KERNEL_conv2d_implicit_grad_filter ||
           kernel == TDM_KERNEL_conv2d_implicit_grad_filter_bias;
}

#ifdef TDM_HAVE_ONEDNN
#include "dnnl_conv.h"

int tdm_opencl_host_conv_load(const char **note)
{
    return tdm_dnnl_load(note);
}

/* A launch of kernel as oneDNN's pass: the window from its uints, which the five
 * kernels take in the same order (kernels.def), and its image, output and filter by
 * the slots' names. */
#define PASS_OF(kernel, image, output, filter)                                                     \
    do {                                                                                           \
        const tdm_##kernel##_scalars u = tdm_##kernel##_scalars_of(launch);                        \
        const tdm_##kernel##_slots s = tdm_##kernel##_slots_of();                                  \
        win = (tdm_dnnl_window){u.batch, u.h,  u.w,        u.c,        u.oh,      u.ow,      u.oc, \
                                u.kh,    u.kw, u.stride_h, u.stride_w, u.pad_top, u.pad_left};     \
        at = (tdm_dnnl_operands){tdm_opencl_host_floats(launch, s.image),                          \
                                 tdm_opencl_host_floats(launch, s.output),                         \
                                 tdm_opencl_host_floats(launch, s.filter), NULL};                  \
    } while (0)

static void CL_CALLBACK run_conv(void *block)
{
    tdm_dnnl_conv *const *conv = block;
    tdm_opencl_host_compute_begin();
    tdm_dnnl_conv_run(*conv);
    tdm_opencl_host_compute_end();
}

static void free_conv(void *conv)
{
    tdm_dnnl_conv_free(conv);
}

tdm_status tdm_opencl_host_conv(tdm_opencl_device *d, const tdm_launch *launch)
{
    if (!d->host_conv)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s '%s': kernel %s runs on oneDNN, on CPU devices whose gemm runs on "
                        "OpenBLAS",
                        d->desc->id, d->desc->name, tdm_kernel_get(launch->kernel)->name);
    tdm_dnnl_pass pass;
    tdm_dnnl_window win;
    tdm_dnnl_operands at;
    if (launch->kernel == TDM_KERNEL_conv2d_implicit) {
        pass = TDM_DNNL_FORWARD;
        PASS_OF(conv2d_implicit, x, y, f);
    } else if (launch->kernel == TDM_KERNEL_conv2d_implicit_bias_relu) {
        pass = TDM_DNNL_FORWARD;
        PASS_OF(conv2d_implicit_bias_relu, x, y, f);
        at.bias = tdm_opencl_host_floats(launch, tdm_conv2d_implicit_bias_relu_slots_of().b);
    } else if (launch->kernel == TDM_KERNEL_conv2d_implicit_grad_input) {
        pass = TDM_DNNL_GRAD_INPUT;
        PASS_OF(conv2d_implicit_grad_input, dx, dy, f);
    } else if (launch->kernel == TDM_KERNEL_conv2d_implicit_grad_filter_bias) {
        pass = TDM_DNNL_GRAD_FILTER;
        PASS_OF(conv2d_implicit_grad_filter_bias, x, dy, df);
        at.bias =
            tdm_opencl_host_floats(launch, tdm_conv2d_implicit_grad_filter_bias_slots_of().db);
    } else {
        pass = TDM_DNNL_GRAD_FILTER;
        PASS_OF(conv2d_implicit_grad_filter, x, dy, df);
    }
    tdm_dnnl_conv *conv;
    tdm_status st = tdm_dnnl_conv_prepare(pass, &win, &at, &conv);
    if (st != TDM_OK)
        return tdm_fail_context(st, "%s '%s': kernel %s", d->desc->id, d->desc->name,
                                tdm_kernel_get(launch->kernel)->name);
    if (!conv)
        return TDM_OK;
    return tdm_opencl_host_command(d, run_conv, &conv, sizeof conv, launch, free_conv, conv);
}

#else

int tdm_opencl_host_conv_load(const char **note)
{
    if (note)
        *note = "this build of tandem has no oneDNN (install libdnnl-dev and reconfigure)";
    return 0;
}

tdm_status tdm_opencl_host_conv(tdm_opencl_device *d, const tdm_launch *launch)
{
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s '%s': kernel %s on OpenCL needs oneDNN, which this build of tandem lacks "
                    "(install libdnnl-dev and reconfigure)",
                    d->desc->id, d->desc->name, tdm_kernel_get(launch->kernel)->name);
}

#endif
