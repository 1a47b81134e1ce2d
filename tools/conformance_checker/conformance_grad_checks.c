/* The gradient checks: each backward kernel or loss gradient of the table, the
 * forward kernel it differentiates, and the point where they are compared. Here the
 * table, the helpers every part shares, element-wise maps and the losses; products,
 * images and normalisations in conformance_grad_{gemm,images,norms}.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_grad_parts.h"
#include "ref_kernels.h"

#define ELEMENTS 1031u /* past a work-group or two, and prime */
#define GRAD_SCALE 0.375f

/* A call with random data on the finite-difference grid (labels in range). */
tdm_status grad_make_call(conf_case *c, conf_buffers *b, tdm_kernel kernel, const uint32_t *u,
                          const float *f, unsigned seed)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    memset(c, 0, sizeof *c);
    c->kernel = kernel;
    memcpy(c->u, u, info->uint_count * sizeof *u);
    if (f)
        memcpy(c->f, f, info->float_count * sizeof *f);
    c->data = CONF_RANDOM;
    c->seed = seed;
    snprintf(c->label, sizeof c->label, "%s", info->name);
    if (conf_buffers_make(c, b) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    for (unsigned k = 0; k < info->buffer_count; k++) {
        float *v = b->host[k];
        uint16_t *h = b->host[k];
        for (size_t i = 0; info->buffers[k].type == 'f' && i < b->total[k]; i++)
            v[i] = (float)(nearbyint(v[i] / GRAD_GRID) * GRAD_GRID);
        for (size_t i = 0; info->buffers[k].type == 'h' && i < b->total[k]; i++)
            h[i] = tdm_f16_from_f32(
                (float)(nearbyint(tdm_f32_from_f16(h[i]) / GRAD_HALF_GRID) * GRAD_HALF_GRID));
    }
    return TDM_OK;
}

void grad_copy_view(conf_buffers *to, unsigned to_buffer, const conf_buffers *from,
                    unsigned from_buffer)
{
    memcpy(to->host[to_buffer], from->host[from_buffer],
           from->elements[from_buffer] * sizeof(float));
}

/* The loss weighs output o by values[o], or by `constant` where values is NULL. */
tdm_status grad_weigh(grad_problem *p, const float *values, float constant)
{
    size_t n = p->fwd_in.elements[p->out];
    p->weight = malloc((n ? n : 1) * sizeof *p->weight);
    if (!p->weight)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t o = 0; o < n; o++)
        p->weight[o] = values ? values[o] : constant;
    return TDM_OK;
}

size_t grad_one_round(const grad_problem *p, size_t j)
{
    (void)p, (void)j;
    return 0;
}

static long same_element(const grad_problem *p, size_t o, size_t round)
{
    (void)p, (void)round;
    return (long)o;
}

/* The forward and backward of one element-wise map, y = f(x): the backward takes
 * dy (the loss's weights) and either x or the forward's own output y. */
static tdm_status elementwise(tdm_device *dev, grad_problem *p, tdm_kernel forward,
                              tdm_kernel backward, const uint32_t *u, const float *f,
                              int takes_output)
{
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, forward, u, f, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, backward, u, f, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 1, p->grad = 0;
    p->rounds = 1, p->round_of = grad_one_round, p->owner = same_element;
    if (backward != forward && !takes_output)
        grad_copy_view(&p->bwd_in, 2, &p->fwd_in, 1);
    if (takes_output) {
        conf_buffers y;
        if (conf_buffers_transform(&p->fwd, &p->fwd_in, &y, 0, 0) != 0)
            return TDM_ERR_OUT_OF_MEMORY;
        s = conf_run(dev, &p->fwd, &p->fwd_in, &y);
        if (s == TDM_OK)
            grad_copy_view(&p->bwd_in, 2, &y, 0);
        conf_buffers_free(&y);
    }
    return s == TDM_OK ? grad_weigh(p, p->bwd_in.host[1], 0) : s;
}

/* Maps whose backward takes x, and maps whose backward takes the output y. */
static tdm_status map_of_input(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)index;
    const uint32_t u[] = {ELEMENTS};
    return elementwise(dev, p, g->forward, g->backward, u, NULL, 0);
}

static tdm_status map_of_output(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)index;
    const uint32_t u[] = {ELEMENTS};
    return elementwise(dev, p, g->forward, g->backward, u, NULL, 1);
}

static tdm_status relu_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    tdm_status s = map_of_input(dev, g, index, p);
    float *x[2] = {p->fwd_in.host[1], p->bwd_in.host[2]};
    for (size_t i = 0; s == TDM_OK && i < ELEMENTS; i++)
        if (fabsf(x[0][i]) < 4 * GRAD_STEP) /* clear of the kink by more than the stencil */
            x[0][i] = x[1][i] = copysignf(fabsf(x[0][i]) + 4 * (float)GRAD_STEP, x[0][i]);
    return s;
}

/* The backward pass of dropout is the same kernel, with the same mask, on dy. */
static tdm_status dropout_problem(tdm_device *dev, const grad_check *g, size_t index,
                                  grad_problem *p)
{
    (void)g, (void)index;
    const uint32_t u[] = {ELEMENTS, 0x9e3779b9u, 0x7f4a7c15u, 4093};
    const float f[] = {0.3f};
    return elementwise(dev, p, TDM_KERNEL_dropout, TDM_KERNEL_dropout, u, f, 0);
}

/* y[r, c] = x[r, c] + b[c]: every output of column c depends on b[c] alone. */
static long bias_column(const grad_problem *p, size_t o, size_t round)
{
    (void)round;
    return (long)(o % p->fwd.u[1]);
}

static tdm_status bias_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {13, 7};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_bias_add, u, NULL, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_sum_axis0, u, NULL, 2);
    p->out = 0, p->wrt = 2, p->grad = 0;
    p->rounds = 1, p->round_of = grad_one_round, p->owner = bias_column;
    return s == TDM_OK ? grad_weigh(p, p->bwd_in.host[1], 0) : s;
}

/* A loss kernel gives its own gradient: the same call, scaled by its grad_scale, the
 * first of its floats f (NULL: grad_scale alone). */
static tdm_status loss_problem(grad_problem *p, tdm_kernel kernel, const uint32_t *u,
                               const float *f)
{
    const float scale_only[] = {GRAD_SCALE};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, kernel, u, f ? f : scale_only, 1);
    if (s != TDM_OK)
        return s;
    p->bwd = p->fwd;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &p->bwd_in, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    p->out = 0, p->wrt = 2, p->grad = 1;
    p->rounds = 1, p->round_of = grad_one_round, p->owner = same_element;
    return grad_weigh(p, NULL, GRAD_SCALE);
}

/* Row r's loss depends on every logit of the row: a round moves one column. */
size_t grad_column_round(const grad_problem *p, size_t j)
{
    return j % p->fwd.u[1];
}

static long row_logit(const grad_problem *p, size_t o, size_t round)
{
    return (long)(o * p->fwd.u[1] + round);
}

static tdm_status softmax_xent_problem(tdm_device *dev, const grad_check *g, size_t index,
                                       grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {9, 10};
    tdm_status s = loss_problem(p, TDM_KERNEL_softmax_xent, u, NULL);
    p->rounds = u[1], p->round_of = grad_column_round, p->owner = row_logit;
    return s;
}

/* Against soft target rows (in [0, 1], their sums not 1): the same rounds. */
static tdm_status softmax_xent_soft_problem(tdm_device *dev, const grad_check *g, size_t index,
                                            grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {9, 10};
    tdm_status s = loss_problem(p, TDM_KERNEL_softmax_xent_soft, u, NULL);
    p->rounds = u[1], p->round_of = grad_column_round, p->owner = row_logit;
    return s;
}

static tdm_status mse_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    return loss_problem(p, TDM_KERNEL_mse, u, NULL);
}

/* Moves pred (buffer 2, in both calls) so that d = pred - target keeps more than the
 * stencil's reach from the kink at |d| = kink: |d| within 4 steps of it becomes kink
 * plus 4 steps, d's sign kept (on the grid still). */
static void clear_of_kink(grad_problem *p, float kink)
{
    float *pred[2] = {p->fwd_in.host[2], p->bwd_in.host[2]};
    const float *target = p->fwd_in.host[3];
    for (size_t i = 0; i < ELEMENTS; i++) {
        float d = pred[0][i] - target[i];
        if (fabsf(fabsf(d) - kink) < 4 * GRAD_STEP)
            pred[0][i] = pred[1][i] = target[i] + copysignf(kink + 4 * (float)GRAD_STEP, d);
    }
}

/* |d| has its kink at d = 0. */
static tdm_status mae_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    tdm_status s = loss_problem(p, TDM_KERNEL_mae, u, NULL);
    if (s == TDM_OK)
        clear_of_kink(p, 0.0f);
    return s;
}

/* Keras' delta, 1: d in [-4, 4] lies on both sides of it. The loss's second derivative
 * jumps at |d| = delta, which the stencil's O(h^4) error assumes away. */
#define HUBER_DELTA 1.0f

static tdm_status huber_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    const float f[] = {GRAD_SCALE, HUBER_DELTA};
    tdm_status s = loss_problem(p, TDM_KERNEL_huber, u, f);
    if (s == TDM_OK)
        clear_of_kink(p, HUBER_DELTA);
    return s;
}

/* With respect to the logits, against soft targets in [0, 1]. */
static tdm_status sigmoid_xent_problem(tdm_device *dev, const grad_check *g, size_t index,
                                       grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    return loss_problem(p, TDM_KERNEL_sigmoid_xent, u, NULL);
}

static const grad_check checks[] = {
    {"relu_grad", TDM_KERNEL_relu, TDM_KERNEL_relu_grad, 1, relu_problem},
    {"tanh_grad", TDM_KERNEL_tanh, TDM_KERNEL_tanh_grad, 1, map_of_output},
    {"sigmoid_grad", TDM_KERNEL_sigmoid, TDM_KERNEL_sigmoid_grad, 1, map_of_output},
    {"gelu_grad", TDM_KERNEL_gelu, TDM_KERNEL_gelu_grad, 1, map_of_input},
    {"dropout dx", TDM_KERNEL_dropout, TDM_KERNEL_dropout, 1, dropout_problem},
    {"sum_axis0 db", TDM_KERNEL_bias_add, TDM_KERNEL_sum_axis0, 1, bias_problem},
    {"softmax_xent", TDM_KERNEL_softmax_xent, TDM_KERNEL_softmax_xent, 1, softmax_xent_problem},
    {"mse", TDM_KERNEL_mse, TDM_KERNEL_mse, 1, mse_problem},
    {"mae", TDM_KERNEL_mae, TDM_KERNEL_mae, 1, mae_problem},
    {"huber", TDM_KERNEL_huber, TDM_KERNEL_huber, 1, huber_problem},
    {"sigmoid_xent", TDM_KERNEL_sigmoid_xent, TDM_KERNEL_sigmoid_xent, 1, sigmoid_xent_problem},
    {"softmax_xent_soft", TDM_KERNEL_softmax_xent_soft, TDM_KERNEL_softmax_xent_soft, 1,
     softmax_xent_soft_problem},
    {"gemm dA", TDM_KERNEL_gemm, TDM_KERNEL_gemm, 4, grad_build_gemm_a},
    {"gemm dB", TDM_KERNEL_gemm, TDM_KERNEL_gemm, 4, grad_build_gemm_b},
    {"gemm_f16 dA", TDM_KERNEL_gemm_f16, TDM_KERNEL_gemm_f16, 4, grad_build_gemm_a},
    {"gemm_f16 dB", TDM_KERNEL_gemm_f16, TDM_KERNEL_gemm_f16, 4, grad_build_gemm_b},
    {"conv2d dx", TDM_KERNEL_conv2d, TDM_KERNEL_conv2d_grad_input, GRAD_IMAGE_CASES,
     grad_build_conv_x},
    {"conv2d df", TDM_KERNEL_conv2d, TDM_KERNEL_conv2d_grad_filter, GRAD_IMAGE_CASES,
     grad_build_conv_f},
    {"conv2d_implicit dx", TDM_KERNEL_conv2d_implicit, TDM_KERNEL_conv2d_implicit_grad_input,
     GRAD_IMAGE_CASES, grad_build_conv_x},
    {"conv2d_implicit df", TDM_KERNEL_conv2d_implicit, TDM_KERNEL_conv2d_implicit_grad_filter,
     GRAD_IMAGE_CASES, grad_build_conv_f},
    {"max_pool2d dx", TDM_KERNEL_max_pool2d, TDM_KERNEL_max_pool2d_grad, GRAD_IMAGE_CASES,
     grad_build_max_pool},
    {"avg_pool2d dx", TDM_KERNEL_avg_pool2d, TDM_KERNEL_avg_pool2d_grad, GRAD_IMAGE_CASES,
     grad_build_avg_pool},
    {"global_avg_pool dx", TDM_KERNEL_global_avg_pool, TDM_KERNEL_global_avg_pool_grad,
     GRAD_GLOBAL_CASES, grad_build_global_pool},
    {"im2col dx", TDM_KERNEL_im2col, TDM_KERNEL_col2im, GRAD_IMAGE_CASES, grad_build_im2col},
    {"gather_rows dx", TDM_KERNEL_gather_rows, TDM_KERNEL_gather_rows_grad, 1, grad_build_gather},
    {"batch_norm dx", TDM_KERNEL_batch_norm_apply, TDM_KERNEL_batch_norm_grad, 1,
     grad_build_batch_norm},
    {"layer_norm dx", TDM_KERNEL_layer_norm, TDM_KERNEL_layer_norm_grad, 1, grad_build_layer_norm},
    {"attention_softmax ds", TDM_KERNEL_attention_softmax, TDM_KERNEL_attention_softmax_grad, 2,
     grad_build_attention},
};

size_t grad_check_count(void)
{
    return sizeof checks / sizeof checks[0];
}

const grad_check *grad_check_get(size_t check)
{
    return &checks[check];
}
