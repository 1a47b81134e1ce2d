/* The ways a convolution may compute, below conv2d.c and the choice among them
 * (conv2d_choice.c): their names, which a device offers, what each keeps. */
#include "base/error.h"
#include "kernel/kernel.h"
#include "model/model_impl.h"

static const char *const algorithm_names[] = {"auto",     "direct",   "lowered", "measured",
                                              "implicit", "winograd", NULL};

TDM_NAMED_ENUM(tdm_conv_algorithm, algorithm_names, tdm_conv_algorithm_names,
               tdm_conv_algorithm_name, tdm_conv_algorithm_parse, "convolution algorithm")

int tdm_conv_has_implicit(const tdm_device *dev)
{
    return tdm_kernel_supported(dev, TDM_KERNEL_conv2d_implicit) &&
           tdm_kernel_supported(dev, TDM_KERNEL_conv2d_implicit_grad_filter) &&
           tdm_kernel_supported(dev, TDM_KERNEL_conv2d_implicit_grad_input);
}

int tdm_conv_fuses_relu(const tdm_device *dev)
{
    return tdm_kernel_supported(dev, TDM_KERNEL_conv2d_implicit_bias_relu);
}

int tdm_conv_fuses_bias_grad(const tdm_device *dev)
{
    return tdm_kernel_supported(dev, TDM_KERNEL_conv2d_implicit_grad_filter_bias);
}

int tdm_conv_keeps_columns(const tdm_device *dev, tdm_conv_algorithm a)
{
    return a == TDM_CONV_LOWERED || a == TDM_CONV_MEASURED ||
           (a == TDM_CONV_WINOGRAD && !tdm_conv_has_implicit(dev));
}
