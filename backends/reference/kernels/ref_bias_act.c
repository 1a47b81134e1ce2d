/* bias_act as the two kernels it fuses, one after the other: bias_add into z, then
 * the activation's kernel from z into y (linear: bias_add into y as well, before z,
 * which x may be). So the reference is their composition bit for bit by definition. */
#include "base/error.h"
#include "ref_kernels.h"
#include "reference_launch.h"
#include "tandem/nn.h"

void ref_bias_act(const ref_bias_act_args *a)
{
    const uint32_t n = a->rows * a->cols;
    const ref_bias_add_args into_y = {a->y, a->x, a->b, a->rows, a->cols};
    const ref_bias_add_args into_z = {a->z, a->x, a->b, a->rows, a->cols};
    if (a->activation == TDM_ACT_LINEAR)
        ref_bias_add(&into_y);
    ref_bias_add(&into_z);
    switch (a->activation) {
    case TDM_ACT_RELU: ref_relu(&(ref_relu_args){a->y, a->z, n}); break;
    case TDM_ACT_TANH: ref_tanh(&(ref_tanh_args){a->y, a->z, n}); break;
    case TDM_ACT_SIGMOID: ref_sigmoid(&(ref_sigmoid_args){a->y, a->z, n}); break;
    case TDM_ACT_GELU: ref_gelu(&(ref_gelu_args){a->y, a->z, n}); break;
    }
}

/* bias_act's buffers, in the table's order. */
enum { Y, Z, X, B };

/* A launch of a part of bias_act_f16: its float16 twin on some of the launch's views. */
static tdm_launch part(const tdm_launch *fused, tdm_kernel kernel, const unsigned *views,
                       unsigned count)
{
    tdm_launch p = {.kernel = tdm_kernel_half_twin(kernel), .groups = fused->groups};
    for (unsigned i = 0; i < count; i++) {
        p.buffers[i] = fused->buffers[views[i]];
        p.offsets[i] = fused->offsets[views[i]];
    }
    return p;
}

/* The float16 twin runs its parts' twins, so that the activation reads z rounded to
 * float16 as stored (tdm_reference_half_twin's float copies would round it only
 * after the activation had read it). */
tdm_status tdm_reference_bias_act_f16(tdm_device *dev, const tdm_launch *launch)
{
    const tdm_kernel_info *info = tdm_kernel_get(launch->kernel);
    const uint32_t rows = (uint32_t)tdm_kernel_uint(info, launch->u, TDM_UINT_rows);
    const uint32_t cols = (uint32_t)tdm_kernel_uint(info, launch->u, TDM_UINT_cols);
    const uint32_t act = (uint32_t)tdm_kernel_uint(info, launch->u, TDM_UINT_activation);
    const tdm_kernel apply = tdm_activation_kernel(act);
    if (apply == TDM_KERNEL_COUNT)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: unknown activation %u", dev->desc.id,
                        info->name, act);
    tdm_launch add_z = part(launch, TDM_KERNEL_bias_add, (const unsigned[]){Z, X, B}, 3);
    tdm_launch add_y = part(launch, TDM_KERNEL_bias_add, (const unsigned[]){Y, X, B}, 3);
    tdm_launch act_y = part(launch, apply, (const unsigned[]){Y, Z}, 2);
    add_z.u[0] = add_y.u[0] = rows;
    add_z.u[1] = add_y.u[1] = cols;
    act_y.u[0] = rows * cols;
    tdm_status s = apply == TDM_KERNEL_bias_add ? tdm_reference_launch(dev, &add_y) : TDM_OK;
    if (s == TDM_OK)
        s = tdm_reference_launch(dev, &add_z);
    if (s == TDM_OK && apply != TDM_KERNEL_bias_add)
        s = tdm_reference_launch(dev, &act_y);
    return s;
}
