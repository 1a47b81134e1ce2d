/* The public activations and their gradients: one kernel each in the table. */

#include "base/error.h"
#include "kernel/kernel_args.h"
#include "ops/ops_check.h"
#include "tandem/nn.h"
#include "tandem/ops.h"
#include "device/memory/tensor_impl.h"

/* The activations share their arguments: y, x and n forward; dx, dy, n and x or,
 * where the gradient is cheaper from it, the forward's output y backward. */
typedef tdm_kernel_call (*forward_call)(tdm_buffer_view y, tdm_buffer_view x, uint32_t n);
typedef tdm_kernel_call (*backward_call)(tdm_buffer_view dx, tdm_buffer_view dy, tdm_buffer_view x,
                                         tdm_buffer_view y, uint32_t n);

#define FORWARD(kernel)                                                                            \
    static tdm_kernel_call kernel##_forward(tdm_buffer_view y, tdm_buffer_view x, uint32_t n)      \
    {                                                                                              \
        const tdm_##kernel##_args a = {.y = y, .x = x, .n = n};                                    \
        return tdm_##kernel##_call(&a);                                                            \
    }
/* from: x or y, the field the kernel's table entry names */
#define BACKWARD(kernel, from)                                                                     \
    static tdm_kernel_call kernel##_backward(tdm_buffer_view dx, tdm_buffer_view dy,               \
                                             tdm_buffer_view x, tdm_buffer_view y, uint32_t n)     \
    {                                                                                              \
        const tdm_##kernel##_grad_args a = {.dx = dx, .dy = dy, .from = from, .n = n};             \
        (void)x, (void)y;                                                                          \
        return tdm_##kernel##_grad_call(&a);                                                       \
    }
FORWARD(relu)
FORWARD(tanh)
FORWARD(sigmoid)
FORWARD(gelu)
BACKWARD(relu, x)
BACKWARD(tanh, y)
BACKWARD(sigmoid, y)
BACKWARD(gelu, x)

/* The names tdm_activation_parse reads and tdm_activation_names lists, by value. */
static const char *const activation_names[] = {
    [TDM_ACT_LINEAR] = "linear",   [TDM_ACT_RELU] = "relu", [TDM_ACT_TANH] = "tanh",
    [TDM_ACT_SIGMOID] = "sigmoid", [TDM_ACT_GELU] = "gelu", NULL};
#define ACTIVATION_COUNT (sizeof activation_names / sizeof activation_names[0] - 1)

static const struct {
    forward_call forward;
    backward_call backward;
} activations[ACTIVATION_COUNT] = {
    [TDM_ACT_RELU] = {relu_forward, relu_backward},
    [TDM_ACT_TANH] = {tanh_forward, tanh_backward},
    [TDM_ACT_SIGMOID] = {sigmoid_forward, sigmoid_backward},
    [TDM_ACT_GELU] = {gelu_forward, gelu_backward},
};

TDM_NAMED_ENUM(tdm_activation, activation_names, tdm_activation_names, tdm_activation_name,
               tdm_activation_parse, "activation")

/* out and in[] on one device, with out's element count; in[i] of dtypes[i]. */
static tdm_status check_act(const char *f, tdm_activation act, const tdm_tensor *out,
                            tdm_dtype out_dtype, const tdm_tensor *const *in,
                            const tdm_dtype *dtypes, const char *const *names, size_t n)
{
    if ((size_t)act >= ACTIVATION_COUNT)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown activation %d", f, (int)act);
    tdm_status s = tdm_ops_check(f, "output", out, out_dtype, NULL);
    for (size_t i = 0; i < n && s == TDM_OK; i++) {
        s = tdm_ops_check(f, names[i], in[i], dtypes[i], out->device);
        if (s == TDM_OK)
            s = tdm_ops_check_count(f, names[i], in[i], out->count);
    }
    return s;
}

tdm_status tdm_op_activation(tdm_activation act, tdm_tensor *y, const tdm_tensor *x)
{
    const char *f = "tdm_op_activation";
    const char *names[] = {"x"};
    const tdm_dtype storage = tdm_ops_storage(y); /* y and x: f32, or f16 activations */
    tdm_status s = check_act(f, act, y, storage, &x, &storage, names, 1);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (act == TDM_ACT_LINEAR)
        return y == x ? TDM_OK : tdm_tensor_copy(y, x);
    tdm_kernel_call call =
        activations[act].forward(tdm_tensor_view(y), tdm_tensor_view(x), (uint32_t)y->count);
    tdm_kernel_store_as(&call, storage);
    return tdm_ops_run(f, y, &call);
}

tdm_status tdm_op_activation_grad(tdm_activation act, tdm_tensor *dx, const tdm_tensor *dy,
                                  const tdm_tensor *x, const tdm_tensor *y)
{
    const char *f = "tdm_op_activation_grad";
    const tdm_tensor *in[] = {dy, x, y};
    const char *names[] = {"dy", "x", "y"};
    const tdm_dtype storage = tdm_ops_storage(x); /* the forward's x and y */
    const tdm_dtype dtypes[] = {TDM_F32, storage, storage};
    tdm_status s = check_act(f, act, dx, TDM_F32, in, dtypes, names, 3);
    if (s != TDM_OK || dx->count == 0)
        return s;
    if (act == TDM_ACT_LINEAR)
        return dx == dy ? TDM_OK : tdm_tensor_copy(dx, dy);
    tdm_kernel_call call =
        activations[act].backward(tdm_tensor_view(dx), tdm_tensor_view(dy), tdm_tensor_view(x),
                                  tdm_tensor_view(y), (uint32_t)dx->count);
    tdm_kernel_store_as(&call, storage);
    return tdm_ops_run(f, dx, &call);
}
