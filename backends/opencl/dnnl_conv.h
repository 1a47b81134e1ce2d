/* Internal: conv2d's three passes as the implicit kernels of kernels.def define them
 * (conv2d_implicit, conv2d_implicit_grad_input, conv2d_implicit_grad_filter), run on
 * the host's cores by oneDNN (libdnnl.so.2, opened at run time and optional) over
 * NHWC images and HWIO filters in host memory. oneDNN's just-in-time kernels use the
 * CPU's widest vectors, where a lowered convolution runs OpenBLAS on thin products
 * (docs/design/008-convolutions-on-the-host.md). Nothing here knows OpenCL: the
 * OpenCL backend runs a prepared pass as a command of a CPU device's queue
 * (opencl_host_conv.c). */
#ifndef TDM_OPENCL_DNNL_CONV_H
#define TDM_OPENCL_DNNL_CONV_H

#include <stdint.h>

#include "tandem/status.h"

typedef enum { TDM_DNNL_FORWARD, TDM_DNNL_GRAD_INPUT, TDM_DNNL_GRAD_FILTER } tdm_dnnl_pass;

/* The kernels' uints: an image [batch, h, w, c], an output [batch, oh, ow, oc], a
 * kh x kw window moving by the strides, with padding above and left. */
typedef struct tdm_dnnl_window {
    uint32_t batch, h, w, c, oh, ow, oc, kh, kw, stride_h, stride_w, pad_top, pad_left;
} tdm_dnnl_window;

/* A pass's buffers, where the host addresses them: the image (x, or dx that the input
 * gradient writes), the output (y that the forward writes, or dy) and the filter (f,
 * or df that the filter gradient adds to). A forward given a bias [oc] adds it and
 * takes the sums through relu (conv2d_implicit_bias_relu); a filter gradient given
 * one adds dy's column sums to it (conv2d_implicit_grad_filter_bias). NULL: neither. */
typedef struct tdm_dnnl_operands {
    float *image, *output, *filter, *bias;
} tdm_dnnl_operands;

typedef struct tdm_dnnl_conv tdm_dnnl_conv;

/* Loads oneDNN once per process (thread-safe): 1 when it is there and makes a CPU
 * engine, else 0. *note (note may be NULL): the file, or why not. */
int tdm_dnnl_load(const char **note);

/* A pass made ready on the calling thread, its primitives chosen and built, so that
 * running it cannot fail for its shape: *out, or NULL when the pass writes nothing
 * (an empty output, or a filter gradient over no positions). TDM_ERR_UNSUPPORTED
 * with oneDNN's reason where it takes no such convolution. */
tdm_status tdm_dnnl_conv_prepare(tdm_dnnl_pass pass, const tdm_dnnl_window *win,
                                 const tdm_dnnl_operands *operands, tdm_dnnl_conv **out);

/* Runs a prepared pass (on any thread; one at a time). Should oneDNN fail here after
 * all, the buffer the pass writes is filled with NaN, which training's numerics
 * check reports, rather than left as it was. */
void tdm_dnnl_conv_run(tdm_dnnl_conv *conv);

void tdm_dnnl_conv_free(tdm_dnnl_conv *conv);

#endif
