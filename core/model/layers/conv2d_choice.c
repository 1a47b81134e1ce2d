/* How each convolution layer computes on a device: direct kernels, lowered to im2col
 * and GEMM, as implicit GEMMs or as Winograd's, by the options' rule or, measured, by
 * timing every way the device has with the layer's shapes and the step's rows; in
 * mixed precision whose products wait to be timed, lowered with f16 operands races
 * the layer's f32 ways too. */
#include <math.h>
#include <stdio.h>

#include "device/device_impl.h"
#include "base/error.h"
#include "device/log.h"
#include "ops/ops_images.h"
#include "tandem/ops.h"
#include "model/model_impl.h"
#include "base/clock.h"

/* Measured with tandem bench train -m fashion-cnn (docs/PERFORMANCE.md): on PoCL the
 * implicit passes on oneDNN train 2.5-2.9x faster than im2col and GEMM (OpenBLAS),
 * which train 1.9x faster than the direct kernels; im2col and GEMM train 0.6x as
 * fast as direct on the reference backend, whose GEMM sums in double; on lavapipe the
 * implicit GEMMs train 1.7-2.0x faster than im2col and GEMM, and are what measured
 * chooses for both of its layers; on an H100 through Vulkan im2col and GEMM train
 * 1.2x faster than they (its GEMMs' loads are plain, the implicit ones decode each
 * element's place), and are what measured chooses there. Mixed precision lowers them
 * wherever its products take f16 operands, which are GEMM's, and where their precision
 * waits to be timed the race decides both. Auto: implicit on a CPU that has it,
 * lowered elsewhere; implicit where asked and the device has it, else lowered;
 * Winograd where asked and the layer's window is 3x3 of stride 1, else as auto. */
tdm_conv_algorithm tdm_model_conv_rule(const tdm_model *m, const tdm_device *dev, size_t l,
                                       tdm_mixed_products products)
{
    tdm_conv_algorithm a = m->opts.conv_algorithm;
    if (products == TDM_MIXED_F16 || a == TDM_CONV_LOWERED)
        return products == TDM_MIXED_MEASURED ? TDM_CONV_MEASURED : TDM_CONV_LOWERED;
    if (products == TDM_MIXED_MEASURED)
        return TDM_CONV_MEASURED;
    if (a == TDM_CONV_WINOGRAD)
        a = tdm_conv2d_winograd_fits(&m->plans[l].win) ? a : TDM_CONV_AUTO;
    if (a == TDM_CONV_AUTO && dev->desc.backend == TDM_BACKEND_REFERENCE)
        return TDM_CONV_DIRECT;
    if (a == TDM_CONV_AUTO)
        return tdm_conv_has_implicit(dev) && dev->desc.type == TDM_DEVICE_CPU ? TDM_CONV_IMPLICIT
                                                                              : TDM_CONV_LOWERED;
    if (a == TDM_CONV_IMPLICIT)
        return tdm_conv_has_implicit(dev) ? TDM_CONV_IMPLICIT : TDM_CONV_LOWERED;
    return a;
}

/* The tensors of one layer's trial: its input and output images, a filter and its
 * gradient, all zeros (no subnormal slows either way), and the scratch's im2col and
 * halves. */
typedef struct trial {
    tdm_tensor *x, *y, *f, *df, *col;
    const tdm_halves *halves;
    const tdm_window *win;
    int training;
    int input_grad; /* training below the first layer: the model's input has no gradient */
    /* the layer's products wait to be timed: lowered with f16 operands races the f32
     * ways, which are every way with measured convolutions, else the f32 rule's */
    int products_race, every_way;
    tdm_conv_algorithm f32_rule;
} trial;

/* A way the layer may compute: an algorithm, and its products' precision. */
typedef struct way {
    tdm_conv_algorithm conv;
    tdm_mixed_products products;
} way;

/* The ways a trial races, in the order they take turns. */
static const way ways[] = {{TDM_CONV_LOWERED, TDM_MIXED_F32},
                           {TDM_CONV_DIRECT, TDM_MIXED_F32},
                           {TDM_CONV_IMPLICIT, TDM_MIXED_F32},
                           {TDM_CONV_WINOGRAD, TDM_MIXED_F32},
                           {TDM_CONV_LOWERED, TDM_MIXED_F16}};
#define WAYS (sizeof ways / sizeof ways[0])

/* The layer's passes one way, as a step runs them: the forward, and in training the
 * filter's gradient and, but for the first layer, the input's (dy is y, dx is x). */
static tdm_status passes(const trial *t, way w)
{
    tdm_status s;
    const tdm_halves *h = w.products == TDM_MIXED_F16 ? t->halves : NULL;
    switch (w.conv) {
    case TDM_CONV_LOWERED:
        s = tdm_conv2d_lowered(t->y, t->x, t->f, t->col, t->win, h);
        if (s == TDM_OK && t->training)
            s = tdm_conv2d_lowered_grad_filter(t->df, t->col, t->x, t->y, t->win, h);
        if (s == TDM_OK && t->input_grad)
            s = tdm_conv2d_lowered_grad_input(t->x, t->y, t->f, t->col, t->win, h);
        return s;
    case TDM_CONV_WINOGRAD:
        s = tdm_conv2d_winograd(t->y, t->x, t->f, t->win);
        if (s == TDM_OK && t->training)
            s = tdm_conv2d_winograd_grad_filter(
                t->df, t->x, t->y, tdm_conv_has_implicit(tdm_tensor_device(t->y)) ? NULL : t->col,
                t->win);
        if (s == TDM_OK && t->input_grad)
            s = tdm_conv2d_winograd_grad_input(t->x, t->y, t->f, t->win);
        return s;
    case TDM_CONV_IMPLICIT:
        s = tdm_conv2d_implicit(t->y, t->x, t->f, t->win);
        if (s == TDM_OK && t->training)
            s = tdm_conv2d_implicit_grad_filter(t->df, t->x, t->y, t->win);
        if (s == TDM_OK && t->input_grad)
            s = tdm_conv2d_implicit_grad_input(t->x, t->y, t->f, t->win);
        return s;
    default:
        s = tdm_op_conv2d(t->y, t->x, t->f, t->win);
        if (s == TDM_OK && t->training)
            s = tdm_op_conv2d_grad_filter(t->df, t->x, t->y, t->win);
        if (s == TDM_OK && t->input_grad)
            s = tdm_op_conv2d_grad_input(t->x, t->y, t->f, t->win);
        return s;
    }
}

#define RUNS 3 /* each way; the first compiles kernels and touches memory, untimed */

/* One run one way, in seconds. */
static tdm_status timed(const trial *t, tdm_device *dev, way w, double *took)
{
    double began = tdm_seconds();
    tdm_status s = passes(t, w);
    if (s == TDM_OK)
        s = tdm_device_finish(dev);
    *took = tdm_seconds() - began;
    return s;
}

/* Whether the trial races w: implicit where the device has its kernels, Winograd
 * for 3x3 windows of stride 1; f16 operands where the products race, beside the f32
 * ways the options leave. */
static int offered(const trial *t, const tdm_device *dev, way w)
{
    if (w.products == TDM_MIXED_F16)
        return t->products_race;
    if (t->products_race && !t->every_way && w.conv != t->f32_rule)
        return 0;
    return (w.conv != TDM_CONV_IMPLICIT || tdm_conv_has_implicit(dev)) &&
           (w.conv != TDM_CONV_WINOGRAD || tdm_conv2d_winograd_fits(t->win));
}

/* Whether a way's failure sets it aside rather than ending the measurement: a
 * kernel's refusal of the shape, or the memory Winograd's transformed tiles need. */
static int refuses(way w, tdm_status s)
{
    return w.conv != TDM_CONV_LOWERED &&
           (s == TDM_ERR_UNSUPPORTED ||
            (w.conv == TDM_CONV_WINOGRAD && s == TDM_ERR_OUT_OF_MEMORY));
}

/* The fastest timed run each way, best[w] for ways[w], the ways taking turns so that
 * whatever else loads the device (another replica measuring beside it) weighs on all
 * alike. A way not offered stays at infinity; a refusal (refuses: lavapipe's loop
 * budget, Winograd's scratch) ends that way's runs and is left in refused[w]. */
static tdm_status race(const trial *t, tdm_device *dev, double best[WAYS], tdm_status refused[WAYS])
{
    tdm_status s = TDM_OK;
    for (size_t w = 0; w < WAYS; w++) {
        best[w] = INFINITY;
        refused[w] = TDM_OK;
    }
    for (int run = 0; run < RUNS && s == TDM_OK; run++)
        for (size_t w = 0; w < WAYS && s == TDM_OK; w++) {
            if (refused[w] != TDM_OK || !offered(t, dev, ways[w]))
                continue;
            double took;
            tdm_status r = timed(t, dev, ways[w], &took);
            if (refuses(ways[w], r))
                refused[w] = r;
            else
                s = r;
            if (r == TDM_OK && run > 0 && took < best[w])
                best[w] = took;
        }
    return s;
}

static tdm_status zeros(tdm_device *dev, const tdm_shape *shape, tdm_tensor **out)
{
    tdm_status s = tdm_tensor_create(dev, TDM_F32, shape, out);
    return s == TDM_OK ? tdm_op_fill(*out, 0.0f) : s;
}

/* A way's time for the log: milliseconds, "refused" or "none". */
static void describe_way(char *text, size_t size, const trial *t, const tdm_device *dev, size_t w,
                         const double best[WAYS], const tdm_status refused[WAYS])
{
    if (refused[w] != TDM_OK)
        snprintf(text, size, "refused");
    else if (!offered(t, dev, ways[w]))
        snprintf(text, size, "none");
    else
        snprintf(text, size, "%.3f ms", 1e3 * best[w]);
}

/* Times layer l every way on rows rows; a way that refuses the shape or that the
 * device lacks is not chosen. */
static tdm_status measure_layer(const tdm_model *m, tdm_model_scratch *sc, size_t l, size_t rows,
                                int training)
{
    const tdm_layer_plan *p = &m->plans[l];
    trial t = {.win = &p->win,
               .halves = &sc->halves,
               .training = training,
               .input_grad = training && l > 0,
               .products_race = sc->choice[l].products == TDM_MIXED_MEASURED,
               .every_way = m->opts.conv_algorithm == TDM_CONV_MEASURED,
               .f32_rule = tdm_model_conv_rule(m, sc->device, l, TDM_MIXED_F32)};
    tdm_shape filter = tdm_layer_variable_shape(&m->layers[l], p, 0), col;
    tdm_status s = zeros(sc->device, &TDM_SHAPE(rows, p->in_h, p->in_w, p->in_c), &t.x);
    if (s == TDM_OK)
        s = zeros(sc->device, &TDM_SHAPE(rows, p->out_h, p->out_w, p->out_c), &t.y);
    if (s == TDM_OK)
        s = zeros(sc->device, &filter, &t.f);
    if (s == TDM_OK)
        s = zeros(sc->device, &filter, &t.df);
    if (s == TDM_OK) {
        col = tdm_tensor_shape(sc->b.col[l]);
        col.dims[0] = rows;
        s = tdm_tensor_slice(sc->b.col[l], 0, &col, &t.col);
    }
    double best[WAYS];
    tdm_status refused[WAYS];
    if (s == TDM_OK)
        s = race(&t, sc->device, best, refused);
    if (s == TDM_OK) {
        size_t fastest = WAYS; /* a lowered way is always offered, and never refuses */
        for (size_t w = 0; w < WAYS; w++)
            if (best[w] < INFINITY && (fastest == WAYS || best[w] < best[fastest]))
                fastest = w;
        sc->choice[l].conv = ways[fastest].conv;
        if (t.products_race)
            sc->choice[l].products = ways[fastest].products;
        char times[WAYS][32];
        for (size_t w = 0; w < WAYS; w++)
            describe_way(times[w], sizeof times[w], &t, sc->device, w, best, refused);
        tdm_log(sc->device->ctx, TDM_LOG_INFO,
                "conv2d layer %zu on %s, %zu rows: lowered %s, direct %s, implicit %s, winograd "
                "%s, lowered with f16 operands %s: %s%s",
                l, sc->device->desc.id, rows, times[0], times[1], times[2], times[3], times[4],
                tdm_conv_algorithm_name(sc->choice[l].conv),
                sc->choice[l].products == TDM_MIXED_F16 ? " with f16 operands" : "");
    }
    tdm_tensor_destroy(t.col);
    tdm_tensor_destroy(t.df);
    tdm_tensor_destroy(t.f);
    tdm_tensor_destroy(t.y);
    tdm_tensor_destroy(t.x);
    return s;
}

tdm_status tdm_model_conv_measure(const tdm_model *m, tdm_model_scratch *sc, size_t rows,
                                  int training)
{
    tdm_status s = TDM_OK;
    for (size_t l = 0; l < m->opts.layer_count && s == TDM_OK && rows; l++)
        if (sc->choice[l].conv == TDM_CONV_MEASURED)
            s = measure_layer(m, sc, l, rows, training);
    return s;
}

tdm_status tdm_model_conv_algorithm_used(const tdm_model *m, size_t replica, size_t layer,
                                         tdm_conv_algorithm *out)
{
    TDM_CHECK_ARG(m, "tdm_model_conv_algorithm_used");
    TDM_CHECK_ARG(out, "tdm_model_conv_algorithm_used");
    size_t replicas = tdm_strategy_num_local_replicas(m->strategy);
    if (replica >= replicas || layer >= m->opts.layer_count ||
        m->layers[layer].kind != TDM_LAYER_CONV2D)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_model_conv_algorithm_used: replica %zu of %zu, layer %zu of %zu: "
                        "give a local replica and a conv2d layer",
                        replica, replicas, layer, m->opts.layer_count);
    const tdm_model_scratch *sc = &m->scratch[replica];
    tdm_device *dev = tdm_strategy_device(m->strategy, replica);
    *out = sc->device == dev && sc->choice
               ? sc->choice[layer].conv
               : tdm_model_conv_rule(m, dev, layer, tdm_model_products_rule(m, layer));
    return TDM_OK;
}
