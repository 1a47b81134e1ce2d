/* tdm_op_bias_activation on every device of a scenario: bitwise tdm_op_bias_add then
 * tdm_op_activation, z and y, for every activation, with f32 and f16 activations
 * (sums past 65504 overflowing to infinity, NaN, infinities and signed zeros among
 * the inputs), in place (x is z) as a layer adds its bias to its product, z being
 * y for relu and linear (their layers keep z in y, x too in f32), and on
 * shapes whose rows a quad of four cells spans; its gradient,
 * tdm_op_bias_activation_grad, bitwise tdm_op_activation_grad then tdm_op_sum_rows
 * (relu in one launch, relu_bias_grad), dx and db, likewise and in place (dx is dy);
 * bad arguments are refused by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tandem/tandem.h"

/* Inputs that reach every branch of the activations, and edge values. */
static float input_value(size_t i)
{
    static const float edges[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 7e4f, -1e-30f, 90.0f};
    if (i % 11 == 5)
        return edges[i / 11 % (sizeof edges / sizeof edges[0])];
    return (float)((i * 7919) % 4001) / 250.0f - 8.0f;
}

static tdm_tensor *make(tdm_device *dev, tdm_dtype dtype, size_t rows, size_t cols)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, dtype, &TDM_SHAPE(rows, cols), &t));
    return t;
}

static tdm_tensor *filled(tdm_device *dev, tdm_dtype dtype, const tdm_shape *shape, size_t seed)
{
    size_t n = tdm_shape_count(shape);
    float *v = malloc((n ? n : 1) * sizeof *v);
    CHECK(v != NULL);
    for (size_t i = 0; i < n; i++)
        v[i] = input_value(i + seed);
    tdm_tensor *t = test_tensor_as(dev, dtype, shape, v);
    free(v);
    return t;
}

static void check_shape(tdm_device *dev, tdm_dtype dtype, tdm_activation act, size_t rows,
                        size_t cols)
{
    tdm_tensor *x = filled(dev, TDM_F32, &TDM_SHAPE(rows, cols), 0);
    tdm_tensor *b = filled(dev, TDM_F32, &TDM_SHAPE(cols), 3);
    tdm_tensor *z_two = make(dev, dtype, rows, cols), *y_two = make(dev, dtype, rows, cols);
    tdm_tensor *z_one = make(dev, dtype, rows, cols), *y_one = make(dev, dtype, rows, cols);
    CHECK_OK(tdm_op_bias_add(z_two, x, b));
    CHECK_OK(tdm_op_activation(act, y_two, z_two));
    CHECK_OK(tdm_op_bias_activation(act, y_one, z_one, x, b));
    CHECK(test_same_bits(z_one, z_two));
    CHECK(test_same_bits(y_one, y_two));
    if (dtype == TDM_F32) { /* the product added to in place */
        CHECK_OK(tdm_tensor_copy(z_one, x));
        CHECK_OK(tdm_op_bias_activation(act, y_one, z_one, z_one, b));
        CHECK(test_same_bits(z_one, z_two));
        CHECK(test_same_bits(y_one, y_two));
    }
    if (act == TDM_ACT_RELU || act == TDM_ACT_LINEAR) { /* z is y, as a model keeps them */
        const tdm_tensor *from = x;
        if (dtype == TDM_F32) { /* and the product, added to in place */
            CHECK_OK(tdm_tensor_copy(y_one, x));
            from = y_one;
        }
        CHECK_OK(tdm_op_bias_activation(act, y_one, y_one, from, b));
        CHECK(test_same_bits(y_one, y_two));
    }
    tdm_tensor_destroy(y_one);
    tdm_tensor_destroy(z_one);
    tdm_tensor_destroy(y_two);
    tdm_tensor_destroy(z_two);
    tdm_tensor_destroy(b);
    tdm_tensor_destroy(x);
}

static void check_refusals(tdm_device *dev)
{
    tdm_tensor *x = filled(dev, TDM_F32, &TDM_SHAPE(4, 3), 0),
               *b = filled(dev, TDM_F32, &TDM_SHAPE(3), 0);
    tdm_tensor *z = make(dev, TDM_F32, 4, 3), *y = make(dev, TDM_F32, 4, 3);
    tdm_tensor *half = make(dev, TDM_F16, 4, 3), *wide = make(dev, TDM_F32, 4, 4);
    const char *f = "tdm_op_bias_activation";
    CHECK_FAILS(tdm_op_bias_activation((tdm_activation)99, y, z, x, b), TDM_ERR_INVALID_ARGUMENT,
                "unknown activation 99");
    CHECK_FAILS(tdm_op_bias_activation(TDM_ACT_RELU, NULL, z, x, b), TDM_ERR_INVALID_ARGUMENT,
                "argument 'y' is NULL");
    CHECK_FAILS(tdm_op_bias_activation(TDM_ACT_RELU, half, z, x, b), TDM_ERR_INVALID_ARGUMENT,
                "'y' must be f32, it is f16");
    CHECK_FAILS(tdm_op_bias_activation(TDM_ACT_RELU, wide, z, x, b), TDM_ERR_INVALID_ARGUMENT,
                "'y' has shape");
    CHECK_FAILS(tdm_op_bias_activation(TDM_ACT_RELU, y, wide, x, b), TDM_ERR_INVALID_ARGUMENT,
                "'z' has shape");
    CHECK_FAILS(tdm_op_bias_activation(TDM_ACT_RELU, y, z, half, b), TDM_ERR_INVALID_ARGUMENT,
                "'x' must be f32");
    CHECK(strstr(tdm_last_error(), f) != NULL);
    tdm_tensor_destroy(wide);
    tdm_tensor_destroy(half);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(z);
    tdm_tensor_destroy(b);
    tdm_tensor_destroy(x);
}

static void check_grad_shape(tdm_device *dev, tdm_dtype dtype, tdm_activation act, size_t rows,
                             size_t cols)
{
    const tdm_shape shape = TDM_SHAPE(rows, cols), bias = TDM_SHAPE(cols);
    tdm_tensor *dy = filled(dev, TDM_F32, &shape, 0);
    tdm_tensor *x = filled(dev, dtype, &shape, 7), *y = filled(dev, dtype, &shape, 13);
    tdm_tensor *dx_two = filled(dev, TDM_F32, &shape, 1), *dx_one = filled(dev, TDM_F32, &shape, 2);
    tdm_tensor *db_two = filled(dev, TDM_F32, &bias, 3), *db_one = filled(dev, TDM_F32, &bias, 4);
    CHECK_OK(tdm_op_activation_grad(act, dx_two, dy, x, y));
    CHECK_OK(tdm_op_sum_rows(db_two, dx_two));
    CHECK_OK(tdm_op_bias_activation_grad(act, db_one, dx_one, dy, x, y));
    CHECK(test_same_bits(dx_one, dx_two));
    CHECK(test_same_bits(db_one, db_two));
    CHECK_OK(tdm_op_fill(db_one, 1.0f)); /* in place, as a layer's backward pass runs it */
    CHECK_OK(tdm_op_bias_activation_grad(act, db_one, dy, dy, x, y));
    CHECK(test_same_bits(dy, dx_two));
    CHECK(test_same_bits(db_one, db_two));
    tdm_tensor_destroy(db_one);
    tdm_tensor_destroy(db_two);
    tdm_tensor_destroy(dx_one);
    tdm_tensor_destroy(dx_two);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(x);
    tdm_tensor_destroy(dy);
}

static void check_grad_refusals(tdm_device *dev)
{
    const tdm_shape shape = TDM_SHAPE(4, 3);
    tdm_tensor *dy = filled(dev, TDM_F32, &shape, 0), *x = filled(dev, TDM_F32, &shape, 0);
    tdm_tensor *dx = filled(dev, TDM_F32, &shape, 0), *db = filled(dev, TDM_F32, &TDM_SHAPE(3), 0);
    tdm_tensor *half = filled(dev, TDM_F16, &shape, 0);
    tdm_tensor *wide = filled(dev, TDM_F32, &TDM_SHAPE(4, 4), 0);
    tdm_tensor *short_db = filled(dev, TDM_F32, &TDM_SHAPE(2), 0);
    const tdm_activation relu = TDM_ACT_RELU;
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, NULL, dx, dy, x, x), TDM_ERR_INVALID_ARGUMENT,
                "argument 'db' is NULL");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, db, half, dy, x, x), TDM_ERR_INVALID_ARGUMENT,
                "'dx' must be f32, it is f16");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, short_db, dx, dy, x, x), TDM_ERR_INVALID_ARGUMENT,
                "'dx' has shape");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, db, dx, wide, x, x), TDM_ERR_INVALID_ARGUMENT,
                "'dy' has shape");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, db, dx, dy, wide, x), TDM_ERR_INVALID_ARGUMENT,
                "'x' has shape");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, db, dx, dy, x, NULL), TDM_ERR_INVALID_ARGUMENT,
                "argument 'y' is NULL");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, db, dx, dy, x, half), TDM_ERR_INVALID_ARGUMENT,
                "'y' must be f32, it is f16");
    CHECK(strstr(tdm_last_error(), "tdm_op_bias_activation_grad") != NULL);
    /* the other activations refuse through their two operations */
    CHECK_FAILS(tdm_op_bias_activation_grad(TDM_ACT_TANH, short_db, dx, dy, x, x),
                TDM_ERR_INVALID_ARGUMENT, "tdm_op_sum_rows");
    tdm_tensor_destroy(short_db);
    tdm_tensor_destroy(wide);
    tdm_tensor_destroy(half);
    tdm_tensor_destroy(db);
    tdm_tensor_destroy(dx);
    tdm_tensor_destroy(x);
    tdm_tensor_destroy(dy);
}

void test_case_bias_activation(const test_run *run)
{
    static const size_t shapes[][2] = {{1, 1}, {5, 7}, {33, 10}, {64, 129}, {0, 3}};
    static const tdm_dtype dtypes[] = {TDM_F32, TDM_F16};
    const tdm_activation acts[] = {TDM_ACT_LINEAR, TDM_ACT_RELU, TDM_ACT_TANH, TDM_ACT_SIGMOID,
                                   TDM_ACT_GELU};
    for (size_t i = 0; i < run->n_devs; i++) {
        for (size_t d = 0; d < 2; d++)
            for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++)
                for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                    check_shape(run->devs[i], dtypes[d], acts[a], shapes[k][0], shapes[k][1]);
                    check_grad_shape(run->devs[i], dtypes[d], acts[a], shapes[k][0], shapes[k][1]);
                }
        check_refusals(run->devs[i]);
        check_grad_refusals(run->devs[i]);
    }
}
