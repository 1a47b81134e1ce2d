/* The ONNX export's node patterns: reshapes, layouts, activations, windows. */
#include <math.h>

#include "model/onnx/onnx_ops.h"

#define MAX_RANK 8

tdm_onnx_value tdm_onnx_reshape(tdm_onnx_graph *g, tdm_onnx_value x, const int64_t *dims,
                                size_t rank)
{
    int64_t shape[MAX_RANK] = {-1};
    for (size_t k = 0; k < rank && k + 1 < MAX_RANK; k++)
        shape[k + 1] = dims[k];
    int64_t length = (int64_t)rank + 1;
    return tdm_onnx_op2(g, "Reshape", x, tdm_onnx_int64s(g, &length, 1, shape));
}

tdm_onnx_value tdm_onnx_flatten(tdm_onnx_graph *g, tdm_onnx_value x)
{
    tdm_onnx_value out = tdm_onnx_node_begin(g, "Flatten", &x, 1);
    tdm_onnx_attr_int(g, "axis", 1);
    tdm_onnx_node_end(g);
    return out;
}

tdm_onnx_value tdm_onnx_transpose(tdm_onnx_graph *g, tdm_onnx_value x, const int64_t *perm,
                                  size_t rank)
{
    tdm_onnx_value out = tdm_onnx_node_begin(g, "Transpose", &x, 1);
    tdm_onnx_attr_ints(g, "perm", perm, rank);
    tdm_onnx_node_end(g);
    return out;
}

tdm_onnx_value tdm_onnx_to_nchw(tdm_onnx_graph *g, tdm_onnx_value x, size_t h, size_t w, size_t c)
{
    const int64_t dims[3] = {(int64_t)h, (int64_t)w, (int64_t)c}, perm[4] = {0, 3, 1, 2};
    return tdm_onnx_transpose(g, tdm_onnx_reshape(g, x, dims, 3), perm, 4);
}

tdm_onnx_value tdm_onnx_from_nchw(tdm_onnx_graph *g, tdm_onnx_value x)
{
    const int64_t perm[4] = {0, 2, 3, 1};
    return tdm_onnx_flatten(g, tdm_onnx_transpose(g, x, perm, 4));
}

tdm_onnx_value tdm_onnx_positions(tdm_onnx_graph *g, tdm_onnx_value x, size_t positions,
                                  size_t channels)
{
    const int64_t dims[2] = {(int64_t)positions, (int64_t)channels};
    return tdm_onnx_reshape(g, x, dims, 2);
}

tdm_onnx_value tdm_onnx_scalar(tdm_onnx_graph *g, float value)
{
    return tdm_onnx_floats(g, NULL, NULL, 0, &value);
}

tdm_onnx_value tdm_onnx_softmax(tdm_onnx_graph *g, tdm_onnx_value x)
{
    tdm_onnx_value out = tdm_onnx_node_begin(g, "Softmax", &x, 1);
    tdm_onnx_attr_int(g, "axis", -1);
    tdm_onnx_node_end(g);
    return out;
}

/* x * (1 + erf(x / sqrt(2))) / 2 */
static tdm_onnx_value gelu(tdm_onnx_graph *g, tdm_onnx_value x)
{
    tdm_onnx_value root2 = tdm_onnx_scalar(g, (float)sqrt(2.0)), one = tdm_onnx_scalar(g, 1.0f);
    tdm_onnx_value half = tdm_onnx_scalar(g, 0.5f);
    tdm_onnx_value phi =
        tdm_onnx_op2(g, "Add", tdm_onnx_op1(g, "Erf", tdm_onnx_op2(g, "Div", x, root2)), one);
    return tdm_onnx_op2(g, "Mul", tdm_onnx_op2(g, "Mul", x, phi), half);
}

tdm_onnx_value tdm_onnx_activation(tdm_onnx_graph *g, tdm_activation act, tdm_onnx_value x)
{
    switch (act) {
    case TDM_ACT_RELU: return tdm_onnx_op1(g, "Relu", x);
    case TDM_ACT_TANH: return tdm_onnx_op1(g, "Tanh", x);
    case TDM_ACT_SIGMOID: return tdm_onnx_op1(g, "Sigmoid", x);
    case TDM_ACT_GELU: return gelu(g, x);
    default: return x;
    }
}

void tdm_onnx_window_attrs(tdm_onnx_graph *g, const tdm_window *win, size_t in_h, size_t in_w,
                           size_t out_h, size_t out_w)
{
    /* what the last window reaches past the image, less what the top or left pads */
    long long below =
        (long long)((out_h - 1) * win->stride_h + win->height) - (long long)(in_h + win->pad_top);
    long long right =
        (long long)((out_w - 1) * win->stride_w + win->width) - (long long)(in_w + win->pad_left);
    const int64_t kernel[2] = {(int64_t)win->height, (int64_t)win->width};
    const int64_t strides[2] = {(int64_t)win->stride_h, (int64_t)win->stride_w};
    const int64_t pads[4] = {(int64_t)win->pad_top, (int64_t)win->pad_left, below > 0 ? below : 0,
                             right > 0 ? right : 0};
    tdm_onnx_attr_ints(g, "kernel_shape", kernel, 2);
    tdm_onnx_attr_ints(g, "strides", strides, 2);
    tdm_onnx_attr_ints(g, "pads", pads, 4);
}
