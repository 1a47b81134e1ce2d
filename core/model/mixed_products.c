/* Mixed precision's products, layer by layer: whether a dense or conv2d layer's matrix
 * products take f16 operands on a device, by the options or by timing them both ways
 * (a convolution's race is conv2d_choice.c's, which times its f32 ways beside). */
#include <math.h>

#include "base/clock.h"
#include "base/error.h"
#include "device/device_impl.h"
#include "device/log.h"
#include "model/model_impl.h"
#include "tandem/ops.h"

static const char *const product_names[] = {"measured", "f16", "f32", NULL};

TDM_NAMED_ENUM(tdm_mixed_products, product_names, tdm_mixed_products_names, tdm_mixed_products_name,
               tdm_mixed_products_parse, "choice of products")

static int has_products(const tdm_model *m, size_t l)
{
    return m->layers[l].kind == TDM_LAYER_DENSE || m->layers[l].kind == TDM_LAYER_CONV2D;
}

tdm_mixed_products tdm_model_products_rule(const tdm_model *m, size_t l)
{
    if (m->opts.compute_dtype != TDM_F16 || !has_products(m, l))
        return TDM_MIXED_F32;
    if (m->opts.activation_dtype == TDM_F16)
        return TDM_MIXED_F16;
    return m->opts.mixed_products;
}

/* One dense layer's trial: its input, kernel, output and their gradients, all zeros
 * (no subnormal slows either way). */
typedef struct dense_trial {
    tdm_tensor *x, *w, *y, *dw, *dx;
    const tdm_halves *halves;
    int training;
} dense_trial;

/* The layer's products as a step runs them, with halves (f16 operands) or without:
 * the forward, and in training the kernel's gradient and, but for the first layer,
 * the input's (dy is y). */
static tdm_status dense_products(const dense_trial *t, const tdm_halves *h)
{
    tdm_status s = tdm_matmul_mixed(h, t->y, t->x, 0, t->w, 0, 1.0f, 0.0f);
    if (s == TDM_OK && t->training)
        s = tdm_matmul_mixed(h, t->dw, t->x, 1, t->y, 0, 1.0f, 0.0f);
    if (s == TDM_OK && t->dx)
        s = tdm_matmul_mixed(h, t->dx, t->y, 0, t->w, 1, 1.0f, 0.0f);
    return s;
}

#define RUNS                                                                                       \
    5 /* each way, taking turns; the first compiles kernels and touches memory,                    \
         untimed */

/* The fastest timed run each way: best[0] in f32, best[1] with f16 operands. */
static tdm_status race(const dense_trial *t, tdm_device *dev, double best[2])
{
    tdm_status s = TDM_OK;
    best[0] = best[1] = INFINITY;
    for (int run = 0; run < RUNS && s == TDM_OK; run++)
        for (int half = 0; half < 2 && s == TDM_OK; half++) {
            double began = tdm_seconds();
            s = dense_products(t, half ? t->halves : NULL);
            if (s == TDM_OK)
                s = tdm_device_finish(dev);
            double took = tdm_seconds() - began;
            if (s == TDM_OK && run > 0 && took < best[half])
                best[half] = took;
        }
    return s;
}

static tdm_status zeros(tdm_device *dev, size_t rows, size_t cols, tdm_tensor **out)
{
    tdm_status s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, cols), out);
    return s == TDM_OK ? tdm_op_fill(*out, 0.0f) : s;
}

/* Times dense layer l's products both ways on rows rows and keeps the faster; f16
 * where it is at least as fast. */
static tdm_status measure_dense(const tdm_model *m, tdm_model_scratch *sc, size_t l, size_t rows,
                                int training)
{
    size_t in = tdm_plan_in_features(&m->plans[l]), units = m->layers[l].units;
    dense_trial t = {.halves = &sc->halves, .training = training};
    tdm_status s = zeros(sc->device, rows, in, &t.x);
    if (s == TDM_OK)
        s = zeros(sc->device, in, units, &t.w);
    if (s == TDM_OK)
        s = zeros(sc->device, rows, units, &t.y);
    if (s == TDM_OK && training)
        s = zeros(sc->device, in, units, &t.dw);
    if (s == TDM_OK && training && l > 0)
        s = zeros(sc->device, rows, in, &t.dx);
    double best[2];
    if (s == TDM_OK)
        s = race(&t, sc->device, best);
    if (s == TDM_OK) {
        sc->choice[l].products = best[1] <= best[0] ? TDM_MIXED_F16 : TDM_MIXED_F32;
        tdm_log(sc->device->ctx, TDM_LOG_INFO,
                "dense layer %zu on %s, %zu rows: products in f32 %.3f ms, with f16 operands "
                "%.3f ms: %s",
                l, sc->device->desc.id, rows, 1e3 * best[0], 1e3 * best[1],
                tdm_mixed_products_name(sc->choice[l].products));
    }
    tdm_tensor_destroy(t.dx);
    tdm_tensor_destroy(t.dw);
    tdm_tensor_destroy(t.y);
    tdm_tensor_destroy(t.w);
    tdm_tensor_destroy(t.x);
    return s;
}

tdm_status tdm_model_products_measure(const tdm_model *m, tdm_model_scratch *sc, size_t rows,
                                      int training)
{
    tdm_status s = TDM_OK;
    for (size_t l = 0; l < m->opts.layer_count && s == TDM_OK && rows; l++)
        if (m->layers[l].kind == TDM_LAYER_DENSE && sc->choice[l].products == TDM_MIXED_MEASURED)
            s = measure_dense(m, sc, l, rows, training);
    return s;
}

tdm_status tdm_model_mixed_products_used(const tdm_model *m, size_t replica, size_t layer,
                                         tdm_mixed_products *out)
{
    TDM_CHECK_ARG(m, "tdm_model_mixed_products_used");
    TDM_CHECK_ARG(out, "tdm_model_mixed_products_used");
    size_t replicas = tdm_strategy_num_local_replicas(m->strategy);
    if (replica >= replicas || layer >= m->opts.layer_count || !has_products(m, layer))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_model_mixed_products_used: replica %zu of %zu, layer %zu of %zu: "
                        "give a local replica and a dense or conv2d layer",
                        replica, replicas, layer, m->opts.layer_count);
    const tdm_model_scratch *sc = &m->scratch[replica];
    tdm_device *dev = tdm_strategy_device(m->strategy, replica);
    *out = sc->device == dev && sc->choice ? sc->choice[layer].products
                                           : tdm_model_products_rule(m, layer);
    return TDM_OK;
}
