/* The fused kernels as the kernels they fuse, one after the other, so that the
 * reference is their composition bit for bit by definition. bias_act: bias_add into
 * z, then the activation's kernel from z into y (linear: z's values copied, as
 * bias_add into y would write them; x may be z, and z may be y). */
#include <string.h>

#include "ref_kernels.h"
#include "tandem/nn.h"

void ref_bias_act(const ref_bias_act_args *a)
{
    const uint32_t n = a->rows * a->cols;
    const ref_bias_add_args into_z = {a->z, a->x, a->b, a->rows, a->cols};
    ref_bias_add(&into_z);
    switch (a->activation) {
    case TDM_ACT_LINEAR: memmove(a->y, a->z, (size_t)n * sizeof *a->y); break;
    case TDM_ACT_RELU: ref_relu(&(ref_relu_args){a->y, a->z, n}); break;
    case TDM_ACT_TANH: ref_tanh(&(ref_tanh_args){a->y, a->z, n}); break;
    case TDM_ACT_SIGMOID: ref_sigmoid(&(ref_sigmoid_args){a->y, a->z, n}); break;
    case TDM_ACT_GELU: ref_gelu(&(ref_gelu_args){a->y, a->z, n}); break;
    }
}

/* relu_bias_grad as relu_grad, then sum_axis0 over the dx it stored. */
void ref_relu_bias_grad(const ref_relu_bias_grad_args *a)
{
    ref_relu_grad(&(ref_relu_grad_args){a->dx, a->dy, a->x, a->rows * a->cols});
    ref_sum_axis0(&(ref_sum_axis0_args){a->db, a->dx, a->rows, a->cols});
}
