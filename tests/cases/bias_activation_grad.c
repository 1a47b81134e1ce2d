/* tdm_op_bias_activation_grad on every device of a scenario: bitwise
 * tdm_op_activation_grad then tdm_op_sum_rows, dx and db, for every activation (relu
 * in the one launch of relu_bias_grad, the others as their two operations), with f32
 * and f16 activations (NaN, infinities and signed zeros among the inputs), in place
 * (dx is dy) as a layer's backward pass runs it, on shapes a quad of four columns
 * spans unevenly and on no rows; bad arguments are refused by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tandem/tandem.h"

/* Inputs that reach every branch of the gradients, and edge values. */
static float input_value(size_t i)
{
    static const float edges[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 7e4f, -1e-30f, 1e30f};
    if (i % 11 == 5)
        return edges[i / 11 % (sizeof edges / sizeof edges[0])];
    return (float)((i * 7919) % 4001) / 250.0f - 8.0f;
}

static tdm_tensor *filled(tdm_device *dev, tdm_dtype dtype, const tdm_shape *shape, size_t seed)
{
    tdm_tensor *f32 = NULL, *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, shape, &f32));
    size_t n = tdm_tensor_count(f32);
    float *v = malloc((n ? n : 1) * sizeof *v);
    CHECK(v != NULL);
    for (size_t i = 0; i < n; i++)
        v[i] = input_value(i + seed);
    CHECK_OK(tdm_tensor_write(f32, v, n * sizeof *v));
    free(v);
    if (dtype == TDM_F32)
        return f32;
    CHECK_OK(tdm_tensor_create(dev, dtype, shape, &t));
    CHECK_OK(tdm_op_cast(t, f32));
    tdm_tensor_destroy(f32);
    return t;
}

static void check_shape(tdm_device *dev, tdm_dtype dtype, tdm_activation act, size_t rows,
                        size_t cols)
{
    const tdm_shape shape = TDM_SHAPE(rows, cols);
    tdm_tensor *dy = filled(dev, TDM_F32, &shape, 0);
    tdm_tensor *x = filled(dev, dtype, &shape, 7), *y = filled(dev, dtype, &shape, 13);
    tdm_tensor *dx_two = filled(dev, TDM_F32, &shape, 1), *dx_one = filled(dev, TDM_F32, &shape, 2);
    tdm_tensor *db_two = filled(dev, TDM_F32, &TDM_SHAPE(cols), 3);
    tdm_tensor *db_one = filled(dev, TDM_F32, &TDM_SHAPE(cols), 4);
    CHECK_OK(tdm_op_activation_grad(act, dx_two, dy, x, y));
    CHECK_OK(tdm_op_sum_rows(db_two, dx_two));
    CHECK_OK(tdm_op_bias_activation_grad(act, db_one, dx_one, dy, x, y));
    CHECK(test_same_bits(dx_one, dx_two));
    CHECK(test_same_bits(db_one, db_two));
    /* in place, as a layer's backward pass runs it */
    CHECK_OK(tdm_op_fill(db_one, 1.0f));
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

static void check_refusals(tdm_device *dev)
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
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, short_db, dx, dy, x, x),
                TDM_ERR_INVALID_ARGUMENT, "'dx' has shape");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, db, dx, wide, x, x), TDM_ERR_INVALID_ARGUMENT,
                "'dy' has shape");
    CHECK_FAILS(tdm_op_bias_activation_grad(relu, db, dx, dy, wide, x), TDM_ERR_INVALID_ARGUMENT,
                "'x' has shape");
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

void test_case_bias_activation_grad(const test_run *run)
{
    static const size_t shapes[][2] = {{1, 1}, {5, 7}, {33, 10}, {64, 129}, {0, 3}};
    static const tdm_dtype dtypes[] = {TDM_F32, TDM_F16};
    const tdm_activation acts[] = {TDM_ACT_LINEAR, TDM_ACT_RELU, TDM_ACT_TANH, TDM_ACT_SIGMOID,
                                   TDM_ACT_GELU};
    for (size_t i = 0; i < run->n_devs; i++) {
        for (size_t d = 0; d < 2; d++)
            for (size_t a = 0; a < sizeof acts / sizeof acts[0]; a++)
                for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
                    check_shape(run->devs[i], dtypes[d], acts[a], shapes[k][0], shapes[k][1]);
        check_refusals(run->devs[i]);
    }
}
