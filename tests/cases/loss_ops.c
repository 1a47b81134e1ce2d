/* The loss operations tdm_op_mae, tdm_op_huber, tdm_op_sigmoid_xent and
 * tdm_op_softmax_xent_soft on the reference device against values worked out by hand
 * (in double, off line): a zero difference for mae, both sides of delta for huber,
 * logits of +-80 and +-100 (exp(100) overflows a float; 1 + exp(-80) rounds to 1, so
 * only log1p keeps sigmoid_xent's loss of logit 80 against target 1 at 1.8e-35, not 0),
 * and soft target rows, one whose sum is not 1. Then the argument checks. It fails
 * where the reference computes log(1 + exp(-|x|)) or leaves T out of the gradient. */
#include <math.h>

#include "harness.h"

/* A tensor of the shape holding values. */
static tdm_tensor *tensor_of(tdm_device *dev, const tdm_shape *shape, const float *values)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, shape, &t));
    if (t && values)
        CHECK_OK(tdm_tensor_write(t, values, tdm_tensor_bytes(t)));
    return t;
}

/* Reads t's n floats into out; NaN where the read fails. */
static void read_floats(const tdm_tensor *t, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = NAN;
    if (t)
        CHECK_OK(tdm_tensor_read(t, out, n * sizeof *out));
}

/* got within rel of want's magnitude, or of 1 where want is smaller (a float result of
 * a few roundings errs by a few 2^-24); tiny results (rel_only) relative to
 * themselves. NaN where want is NaN. */
static void expect(const char *what, size_t i, float got, double want, int rel_only)
{
    const double rel = 4e-6;
    int ok = isnan(want) ? isnan(got)
                         : fabs(got - want) <= rel * (rel_only ? fabs(want) : fmax(fabs(want), 1));
    if (!ok) {
        test_failures++;
        fprintf(stderr, "%s[%zu] = %.9g, expected %.9g\n", what, i, got, want);
    }
}

static void expect_all(const char *what, const tdm_tensor *t, const double *want, size_t n)
{
    float got[16];
    read_floats(t, got, n);
    for (size_t i = 0; i < n; i++)
        expect(what, i, got[i], want[i], want[i] != 0 && fabs(want[i]) < 1e-30);
}

/* An element-wise loss op as tdm_op_mae and tdm_op_sigmoid_xent are called (huber's
 * through huber_at_delta). */
typedef tdm_status (*pair_op)(tdm_tensor *loss, tdm_tensor *grad, const tdm_tensor *pred,
                              const tdm_tensor *target, float grad_scale);

static void check_pairs(tdm_device *dev, const char *name, pair_op op, const float *pred,
                        const float *target, size_t n, float grad_scale, const double *loss_want,
                        const double *grad_want)
{
    tdm_tensor *p = tensor_of(dev, &TDM_SHAPE(n), pred), *t = tensor_of(dev, &TDM_SHAPE(n), target);
    tdm_tensor *loss = tensor_of(dev, &TDM_SHAPE(n), NULL),
               *grad = tensor_of(dev, &TDM_SHAPE(n), NULL);
    char what[64];
    CHECK_OK(op(loss, grad, p, t, grad_scale));
    snprintf(what, sizeof what, "%s loss", name);
    expect_all(what, loss, loss_want, n);
    snprintf(what, sizeof what, "%s gradient", name);
    expect_all(what, grad, grad_want, n);
    tdm_tensor_destroy(grad);
    tdm_tensor_destroy(loss);
    tdm_tensor_destroy(t);
    tdm_tensor_destroy(p);
}

/* d = pred - target: 1, -3, 0 (equal), 0 (both -0.75), 128, NaN. */
static void check_mae(tdm_device *dev)
{
    const float pred[] = {1.5f, -2.0f, 3.0f, -0.75f, 100.0f, NAN};
    const float target[] = {0.5f, 1.0f, 3.0f, -0.75f, -28.0f, 1.0f};
    const double loss[] = {1, 3, 0, 0, 128, NAN};
    const double grad[] = {0.25, -0.25, 0, 0, 0.25, NAN};
    check_pairs(dev, "mae", tdm_op_mae, pred, target, 6, 0.25f, loss, grad);
}

#define HUBER_DELTA 1.5f

static tdm_status huber_at_delta(tdm_tensor *loss, tdm_tensor *grad, const tdm_tensor *pred,
                                 const tdm_tensor *target, float grad_scale)
{
    return tdm_op_huber(loss, grad, pred, target, HUBER_DELTA, grad_scale);
}

/* delta 1.5; d = 0.5, -1 (inside), 1.5 (on delta: the square, which the line meets),
 * 3, -4 (outside: 1.5 * (|d| - 0.75)), 0. */
static void check_huber(tdm_device *dev)
{
    const float pred[] = {1.0f, -1.0f, 2.0f, 5.0f, -2.0f, 0.125f};
    const float target[] = {0.5f, 0.0f, 0.5f, 2.0f, 2.0f, 0.125f};
    const double loss[] = {0.125, 0.5, 1.125, 3.375, 4.875, 0};
    const double grad[] = {0.25, -0.5, 0.75, 0.75, -0.75, 0};
    check_pairs(dev, "huber", huber_at_delta, pred, target, 6, 0.5f, loss, grad);
}

/* Logits x against targets z, grad_scale 1: sigmoid(x) - z. x = 80 with z = 1 loses
 * log1p(exp(-80)) = 1.8e-35, which log(1 + exp(-80)) would make 0. */
static void check_sigmoid_xent(tdm_device *dev)
{
    const float x[] = {0.0f, 80.0f, -80.0f, 80.0f, 2.0f, -3.0f, -100.0f, 100.0f};
    const float z[] = {0.5f, 1.0f, 1.0f, 0.0f, 0.25f, 1.0f, 0.75f, 0.5f};
    const double loss[] = {0.6931471805599453, 1.8048513878454153e-35, 80, 80,
                           1.6269280110429725, 3.048587351573742,      75, 50};
    const double grad[] = {0, 0, -1, 1, 0.6307970779778823, -0.9525741268224333, -0.75, 0.5};
    check_pairs(dev, "sigmoid_xent", tdm_op_sigmoid_xent, x, z, 8, 1.0f, loss, grad);
}

/* Rows of 3, grad_scale 0.5: one-hot; equal logits against a soft row (loss log 3);
 * +-100 against a soft row whose sum T is 1.25 (loss 0.25 * 100 + 0.5 * 200; the
 * gradient softmax * T - t); -80, 80 one-hot on the smallest (loss 160). */
static void check_softmax_xent_soft(tdm_device *dev)
{
    const float logits[] = {1, 2, 3, 0, 0, 0, 100, 0, -100, -80, 80, 0};
    const float targets[] = {0, 0, 1, 0.2f, 0.3f, 0.5f, 0.5f, 0.25f, 0.5f, 1, 0, 0};
    /* the targets as floats: 0.2f and 0.3f are not 0.2 and 0.3 */
    const double t1[] = {(double)0.2f, (double)0.3f, (double)0.5f};
    const double loss_want[] = {0.4076059644443806, 1.0986122886681098, 125, 160};
    double grad_want[12] = {0.09003057317038046,
                            0.24472847105479764,
                            -0.3347590442251782,
                            0,
                            0,
                            0,
                            0.75,
                            -0.25,
                            -0.5,
                            -1,
                            1,
                            1.8048513878454153e-35};
    for (size_t c = 0; c < 3; c++)
        grad_want[3 + c] = 1.0 / 3 - t1[c];
    for (size_t i = 0; i < 12; i++)
        grad_want[i] *= 0.5;
    tdm_tensor *l = tensor_of(dev, &TDM_SHAPE(4, 3), logits);
    tdm_tensor *t = tensor_of(dev, &TDM_SHAPE(4, 3), targets);
    tdm_tensor *loss = tensor_of(dev, &TDM_SHAPE(4), NULL);
    tdm_tensor *grad = tensor_of(dev, &TDM_SHAPE(4, 3), NULL);
    CHECK_OK(tdm_op_softmax_xent_soft(loss, grad, l, t, 0.5f));
    expect_all("softmax_xent_soft loss", loss, loss_want, 4);
    expect_all("softmax_xent_soft gradient", grad, grad_want, 12);
    tdm_tensor_destroy(grad);
    tdm_tensor_destroy(loss);
    tdm_tensor_destroy(t);
    tdm_tensor_destroy(l);
}

static void check_refusals(tdm_device *dev)
{
    const float zeros[12] = {0};
    tdm_tensor *a = tensor_of(dev, &TDM_SHAPE(4, 3), NULL),
               *b = tensor_of(dev, &TDM_SHAPE(4, 3), NULL);
    tdm_tensor *c = tensor_of(dev, &TDM_SHAPE(4, 3), zeros);
    tdm_tensor *d = tensor_of(dev, &TDM_SHAPE(4, 3), zeros);
    tdm_tensor *short_one = tensor_of(dev, &TDM_SHAPE(11), NULL);
    tdm_tensor *rows = tensor_of(dev, &TDM_SHAPE(4), NULL),
               *wide = tensor_of(dev, &TDM_SHAPE(4, 4), NULL);
    tdm_tensor *labels = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_I32, &TDM_SHAPE(4, 3), &labels));
    CHECK_FAILS(tdm_op_mae(a, b, c, short_one, 1), TDM_ERR_INVALID_ARGUMENT,
                "tdm_op_mae: 'target' has 11 elements, expected 12");
    CHECK_FAILS(tdm_op_mae(NULL, b, c, d, 1), TDM_ERR_INVALID_ARGUMENT, "argument 'loss' is NULL");
    CHECK_FAILS(tdm_op_huber(a, b, c, d, -1, 1), TDM_ERR_INVALID_ARGUMENT,
                "tdm_op_huber: delta must be at least 0, it is -1");
    CHECK_FAILS(tdm_op_huber(a, b, c, d, NAN, 1), TDM_ERR_INVALID_ARGUMENT,
                "delta must be at least 0");
    CHECK_OK(tdm_op_huber(a, b, c, d, INFINITY, 1)); /* half the squared error */
    CHECK_FAILS(tdm_op_huber(a, short_one, c, d, 1, 1), TDM_ERR_INVALID_ARGUMENT,
                "'dpred' has 11 elements");
    CHECK_FAILS(tdm_op_sigmoid_xent(a, b, c, labels, 1), TDM_ERR_INVALID_ARGUMENT,
                "tdm_op_sigmoid_xent: 'targets' must be f32, it is i32");
    CHECK_FAILS(tdm_op_sigmoid_xent(a, b, NULL, d, 1), TDM_ERR_INVALID_ARGUMENT,
                "argument 'logits' is NULL");
    CHECK_FAILS(tdm_op_softmax_xent_soft(rows, b, c, wide, 1), TDM_ERR_INVALID_ARGUMENT,
                "tdm_op_softmax_xent_soft: 'targets' has shape");
    CHECK_FAILS(tdm_op_softmax_xent_soft(rows, b, c, labels, 1), TDM_ERR_INVALID_ARGUMENT,
                "'targets' must be f32");
    CHECK_FAILS(tdm_op_softmax_xent_soft(a, b, c, d, 1), TDM_ERR_INVALID_ARGUMENT,
                "'loss' has 12 elements, expected 4");
    CHECK_FAILS(tdm_op_softmax_xent_soft(rows, b, short_one, d, 1), TDM_ERR_INVALID_ARGUMENT,
                "'logits' has shape");
    tdm_tensor_destroy(labels);
    tdm_tensor_destroy(wide);
    tdm_tensor_destroy(rows);
    tdm_tensor_destroy(short_one);
    tdm_tensor_destroy(d);
    tdm_tensor_destroy(c);
    tdm_tensor_destroy(b);
    tdm_tensor_destroy(a);
}

void test_case_loss_ops(const test_run *run)
{
    (void)run;
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *dev = test_first_device(ctx, TDM_BACKEND_REFERENCE);
    check_mae(dev);
    check_huber(dev);
    check_sigmoid_xent(dev);
    check_softmax_xent_soft(dev);
    check_refusals(dev);
    tdm_context_destroy(ctx);
}
