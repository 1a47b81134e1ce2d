/* tdm_op_copy_columns on every device: a block of columns from the middle of one
 * matrix into the middle of a wider one and back, the other columns untouched, bit
 * for bit (a NaN's payload and -0 included); then every refused argument. */
#include <math.h>
#include <string.h>

#include "harness.h"

static tdm_tensor *matrix(tdm_device *dev, size_t rows, size_t cols, const float *values)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, cols), &t));
    if (t)
        CHECK_OK(tdm_tensor_write(t, values, rows * cols * sizeof(float)));
    return t;
}

static void check_copies(tdm_device *dev)
{
    /* x: 3 rows of 4; y: 3 rows of 5 */
    float x[12], y[15], got[15];
    uint32_t nan_bits = 0x7fc12345u;
    for (int i = 0; i < 12; i++)
        x[i] = (float)(i + 1);
    memcpy(&x[1], &nan_bits, sizeof nan_bits);
    x[6] = -0.0f;
    for (int i = 0; i < 15; i++)
        y[i] = -100.0f - (float)i;
    tdm_tensor *tx = matrix(dev, 3, 4, x), *ty = matrix(dev, 3, 5, y);
    /* x's columns 1 and 2 into y's columns 2 and 3 */
    CHECK_OK(tdm_op_copy_columns(ty, 5, 2, tx, 4, 1, 2));
    CHECK_OK(tdm_tensor_read(ty, got, sizeof got));
    float want[15];
    memcpy(want, y, sizeof want);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++)
            want[r * 5 + 2 + c] = x[r * 4 + 1 + c];
    CHECK(memcmp(got, want, sizeof got) == 0);
    /* and back: y's columns 2 and 3 into a fresh x's columns 0 and 1 */
    float zeros[12] = {0};
    tdm_tensor *back = matrix(dev, 3, 4, zeros);
    CHECK_OK(tdm_op_copy_columns(back, 4, 0, ty, 5, 2, 2));
    float round[12];
    CHECK_OK(tdm_tensor_read(back, round, sizeof round));
    for (int r = 0; r < 3; r++)
        CHECK(memcmp(&round[r * 4], &x[r * 4 + 1], 2 * sizeof(float)) == 0 &&
              round[r * 4 + 2] == 0.0f && round[r * 4 + 3] == 0.0f);
    CHECK_OK(tdm_op_copy_columns(ty, 5, 2, tx, 4, 1, 0)); /* nothing to copy */
    tdm_tensor_destroy(back);
    tdm_tensor_destroy(ty);
    tdm_tensor_destroy(tx);
}

static void check_refusals(tdm_device *dev)
{
    float v[12] = {0};
    tdm_tensor *x = matrix(dev, 3, 4, v), *y = matrix(dev, 2, 6, v), *i32 = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_I32, &TDM_SHAPE(12), &i32));
    CHECK_FAILS(tdm_op_copy_columns(y, 5, 0, x, 4, 0, 2), TDM_ERR_INVALID_ARGUMENT,
                "y of 12 elements as rows of 5 columns, from column 0 for 2: the width divides");
    CHECK_FAILS(tdm_op_copy_columns(y, 6, 5, x, 4, 0, 2), TDM_ERR_INVALID_ARGUMENT,
                "from column 5 for 2: the width divides the elements and the block lies inside");
    CHECK_FAILS(tdm_op_copy_columns(y, 6, 0, x, 0, 0, 2), TDM_ERR_INVALID_ARGUMENT,
                "x of 12 elements as rows of 0 columns");
    CHECK_FAILS(tdm_op_copy_columns(y, 6, 0, x, 4, 0, 2), TDM_ERR_INVALID_ARGUMENT,
                "y has 2 rows of 6, x 3 rows of 4: the rows are the same");
    CHECK_FAILS(tdm_op_copy_columns(y, 6, 0, i32, 4, 0, 2), TDM_ERR_INVALID_ARGUMENT, "x");
    CHECK_FAILS(tdm_op_copy_columns(NULL, 6, 0, x, 4, 0, 2), TDM_ERR_INVALID_ARGUMENT, "y");
    /* spans of one buffer that overlap; halves of it that do not are copied */
    tdm_tensor *top = NULL, *bottom = NULL;
    CHECK_OK(tdm_tensor_slice(x, 0, &TDM_SHAPE(2, 3), &top));
    CHECK_OK(tdm_tensor_slice(x, 6, &TDM_SHAPE(2, 3), &bottom));
    CHECK_FAILS(tdm_op_copy_columns(x, 4, 1, x, 4, 0, 2), TDM_ERR_INVALID_ARGUMENT,
                "y and x overlap in one buffer (bytes 4 to 44 and 0 to 40)");
    CHECK_OK(tdm_op_copy_columns(bottom, 3, 0, top, 3, 0, 3));
    tdm_tensor_destroy(top);
    tdm_tensor_destroy(bottom);
    tdm_tensor_destroy(i32);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(x);
}

void test_case_column_ops(const test_run *run)
{
    for (size_t d = 0; d < run->n_devs; d++)
        check_copies(run->devs[d]);
    check_refusals(run->devs[0]);
}
