/* Internal: the terms of conv2d's implicit passes that oneDNN leaves out. The kernel
 * table defines those passes as gemm's sums over im2col's matrix (kernels.def), whose
 * padding is zeros that multiply the filter (forward, input gradient) or dy (filter
 * gradient) like any element; oneDNN skips padding. The sums agree but where such a
 * term meets an infinity or NaN: 0 times it is NaN, which the table's result holds
 * and oneDNN's does not. Each function below finds those results after oneDNN ran
 * and makes them NaN, at the cost of one pass over the filter, or over dy's border
 * windows, when every value is finite. */
#ifndef TDM_OPENCL_DNNL_PADDING_TERMS_H
#define TDM_OPENCL_DNNL_PADDING_TERMS_H

#include "dnnl_conv.h"

/* y [batch, oh, ow, oc] from the filter f [kh, kw, c, oc] */
void tdm_padding_terms_forward(const tdm_dnnl_window *w, const float *f, float *y);
/* dx [batch, h, w, c] from f */
void tdm_padding_terms_grad_input(const tdm_dnnl_window *w, const float *f, float *dx);
/* df [kh, kw, c, oc] from dy [batch, oh, ow, oc] */
void tdm_padding_terms_grad_filter(const tdm_dnnl_window *w, const float *dy, float *df);

#endif
