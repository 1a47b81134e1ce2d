/* The public activations and their gradients: one kernel each in the table. */
#include <string.h>

#include "error.h"
#include "ops_check.h"
#include "tandem/nn.h"
#include "tandem/ops.h"
#include "tensor_impl.h"

static const struct {
    const char *name;
    tdm_kernel forward, backward;
    int backward_uses_output; /* the gradient is cheaper from y than from x */
} activations[] = {
    [TDM_ACT_LINEAR] = {"linear", TDM_KERNEL_COUNT, TDM_KERNEL_COUNT, 0},
    [TDM_ACT_RELU] = {"relu", TDM_KERNEL_relu, TDM_KERNEL_relu_grad, 0},
    [TDM_ACT_TANH] = {"tanh", TDM_KERNEL_tanh, TDM_KERNEL_tanh_grad, 1},
    [TDM_ACT_SIGMOID] = {"sigmoid", TDM_KERNEL_sigmoid, TDM_KERNEL_sigmoid_grad, 1},
    [TDM_ACT_GELU] = {"gelu", TDM_KERNEL_gelu, TDM_KERNEL_gelu_grad, 0},
};
#define ACTIVATION_COUNT (sizeof activations / sizeof activations[0])

const char *tdm_activation_name(tdm_activation act)
{
    return (size_t)act < ACTIVATION_COUNT ? activations[act].name : "unknown";
}

tdm_status tdm_activation_parse(const char *name, tdm_activation *out)
{
    TDM_CHECK_ARG(name, "tdm_activation_parse");
    TDM_CHECK_ARG(out, "tdm_activation_parse");
    for (size_t i = 0; i < ACTIVATION_COUNT; i++)
        if (strcmp(name, activations[i].name) == 0) {
            *out = (tdm_activation)i;
            return TDM_OK;
        }
    return tdm_fail(TDM_ERR_NOT_FOUND,
                    "tdm_activation_parse: no activation '%s' (linear, relu, tanh, sigmoid, "
                    "gelu)",
                    name);
}

static tdm_status check_act(const char *f, tdm_activation act, const tdm_tensor *out,
                            const tdm_tensor *const *in, const char *const *names, size_t n)
{
    if ((size_t)act >= ACTIVATION_COUNT)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown activation %d", f, (int)act);
    tdm_status s = tdm_ops_check(f, "output", out, TDM_F32, NULL);
    for (size_t i = 0; i < n && s == TDM_OK; i++) {
        s = tdm_ops_check(f, names[i], in[i], TDM_F32, out->device);
        if (s == TDM_OK)
            s = tdm_ops_check_count(f, names[i], in[i], out->count);
    }
    return s;
}

static tdm_status launch(const char *f, tdm_kernel kernel, tdm_tensor *out, const tdm_tensor *a,
                         const tdm_tensor *b)
{
    const tdm_tensor *views[] = {out, a, b};
    tdm_kernel_call call = tdm_ops_call(kernel, views, b ? 3 : 2);
    call.u[0] = (uint32_t)out->count;
    return tdm_ops_run(f, out, &call);
}

tdm_status tdm_op_activation(tdm_activation act, tdm_tensor *y, const tdm_tensor *x)
{
    const char *f = "tdm_op_activation";
    const char *names[] = {"x"};
    tdm_status s = check_act(f, act, y, &x, names, 1);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (act == TDM_ACT_LINEAR)
        return y == x ? TDM_OK : tdm_tensor_copy(y, x);
    return launch(f, activations[act].forward, y, x, NULL);
}

tdm_status tdm_op_activation_grad(tdm_activation act, tdm_tensor *dx, const tdm_tensor *dy,
                                  const tdm_tensor *x, const tdm_tensor *y)
{
    const char *f = "tdm_op_activation_grad";
    const tdm_tensor *in[] = {dy, x, y};
    const char *names[] = {"dy", "x", "y"};
    tdm_status s = check_act(f, act, dx, in, names, 3);
    if (s != TDM_OK || dx->count == 0)
        return s;
    if (act == TDM_ACT_LINEAR)
        return dx == dy ? TDM_OK : tdm_tensor_copy(dx, dy);
    return launch(f, activations[act].backward, dx, dy,
                  activations[act].backward_uses_output ? y : x);
}
