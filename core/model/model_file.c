/* The names a model file gives the loss and its reduction. */
#include <string.h>

#include "model/model_file.h"

static const char *const loss_names[] = {"softmax_cross_entropy", "mean_squared_error"};
static const char *const reduction_names[] = {"sum_over_batch_size", "sum"};

static int find(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *tdm_model_loss_name(tdm_loss_kind kind)
{
    return loss_names[kind];
}

const char *tdm_model_reduction_name(tdm_loss_reduction reduction)
{
    return reduction_names[reduction];
}

int tdm_model_loss_parse(const char *name)
{
    return find(loss_names, 2, name);
}

int tdm_model_reduction_parse(const char *name)
{
    return find(reduction_names, 2, name);
}
