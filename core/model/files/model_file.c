/* The names a model file gives the loss's reduction (the loss's: loss_kinds.c). */
#include <string.h>

#include "model/files/model_file.h"

static const char *const reduction_names[] = {"sum_over_batch_size", "sum"};

static int find(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *tdm_model_reduction_name(tdm_loss_reduction reduction)
{
    return reduction_names[reduction];
}

int tdm_model_reduction_parse(const char *name)
{
    return find(reduction_names, 2, name);
}
