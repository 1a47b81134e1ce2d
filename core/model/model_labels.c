/* Whether a model's loss can read the labels it is given: class indices or float
 * targets, as many as it needs. */
#include "base/error.h"
#include "model/model_impl.h"

tdm_status tdm_model_check_labels(const tdm_model *m, tdm_dtype dtype, size_t width,
                                  const char *func)
{
    tdm_loss_kind kind = m->opts.loss;
    unsigned takes = tdm_loss_kind_labels(kind);
    size_t outputs = tdm_model_output_count(m);
    const char *name = tdm_loss_kind_alias(kind);
    if (dtype == TDM_I32 && !(takes & TDM_LOSS_TAKES_CLASSES))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the loss %s compares the outputs with float targets, and the labels "
                        "are class indices: read them as float targets "
                        "(tdm_dataset_from_targets, tdm_csv_options.float_labels)",
                        func, name);
    size_t positions = tdm_model_output_positions(m);
    if (dtype == TDM_I32 && width != 1 &&
        (width != positions || kind != TDM_LOSS_SOFTMAX_CROSS_ENTROPY))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the labels are %zu class indices per example (a sequence's); the "
                        "model's output has %zu position(s) of %zu outputs each and the loss is "
                        "%s: a label per position takes an output image of as many positions "
                        "and sparse_categorical_crossentropy",
                        func, width, positions, outputs / positions, name);
    if (dtype == TDM_F32 && !(takes & TDM_LOSS_TAKES_TARGETS))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the loss %s takes a class index per example, and the labels are "
                        "float targets: use categorical_crossentropy for one-hot or soft rows, "
                        "or class indices",
                        func, name);
    if (dtype == TDM_F32 && width != outputs)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %zu float targets per example, and the model has %zu outputs: the "
                        "loss %s compares them one for one",
                        func, width, outputs, name);
    if (dtype != TDM_I32 && dtype != TDM_F32)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: labels of %s: they are int32 classes or float32 targets", func,
                        tdm_dtype_name(dtype));
    return TDM_OK;
}

size_t tdm_model_output_positions(const tdm_model *m)
{
    if (!m)
        return 0;
    const tdm_layer_plan *last = &m->plans[m->opts.layer_count - 1];
    return last->out_h * last->out_w;
}

int tdm_model_loss_per_output(const tdm_model *m)
{
    return m->opts.loss != TDM_LOSS_SOFTMAX_CROSS_ENTROPY &&
           m->opts.loss != TDM_LOSS_CATEGORICAL_CROSS_ENTROPY;
}
