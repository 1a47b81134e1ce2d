/* Internal: the sequential model's struct, shared by its construction, its loss
 * function and its evaluation. */
#ifndef TDM_TRAIN_MODEL_IMPL_H
#define TDM_TRAIN_MODEL_IMPL_H

#include "tandem/model.h"

/* The tensors of the passes: per layer, and the loss's. */
typedef struct tdm_model_buffers {
    size_t layers;
    tdm_tensor **z;       /* [layers]: x W + b */
    tdm_tensor **a;       /* [layers]: act(z) */
    tdm_tensor **dropped; /* [layers]: dropout(a), NULL for layers without dropout */
    tdm_tensor **g;       /* [layers]: d(loss) / d(layer output), then / d(z) */
    tdm_tensor *losses;   /* [rows]: per-example losses */
    tdm_tensor *target;   /* [rows, classes]: one-hot labels (mean squared error) */
} tdm_model_buffers;

/* One replica's buffers, rows_capacity rows each; a step uses slices of them with its
 * own row count. */
typedef struct tdm_model_scratch {
    tdm_device *device;
    size_t rows_capacity;
    tdm_model_buffers b;
    tdm_tensor *input; /* [rows_capacity, input_features]: inference's upload, or NULL */
} tdm_model_scratch;

struct tdm_model {
    tdm_strategy *strategy;
    tdm_model_options opts;
    tdm_dense_layer *layers;
    tdm_variable **vars;        /* 2 per layer: kernel, bias */
    tdm_model_scratch *scratch; /* one per replica */
    tdm_model_scratch eval;     /* on the first device, for evaluation and prediction */
    float *standardize; /* [2 * input_features]: mean then divisor (tdm_standardize_params) of
                           the input standardisation, or NULL */
    float *std;         /* [input_features]: its std as given, for saving */
};

/* Layer l's input width. */
size_t tdm_model_input_width(const tdm_model *m, size_t l);

/* Variable i's name: "dense<l>/kernel" or "dense<l>/bias". */
void tdm_model_variable_name(size_t i, char *buf, size_t size);

/* tdm_model_create with initial values: values[i] (host float32, variable i's shape)
 * or, where values or values[i] is NULL, the seeded initialisation. */
tdm_status tdm_model_create_with(tdm_strategy *s, const tdm_model_options *opts,
                                 const float *const *values, const char *func, tdm_model **out);

/* The forward pass of `rows` host rows on the first device, in chunks of the eval
 * scratch, with the model's outputs [rows, outputs] read back into out. The rows go
 * in as they are (no standardisation). */
tdm_status tdm_model_infer(tdm_model *m, const float *rows_in, size_t rows, float *out);

/* Makes sure sc holds rows rows on dev. */
tdm_status tdm_model_scratch_reserve(const tdm_model *m, tdm_model_scratch *sc, tdm_device *dev,
                                     size_t rows);
void tdm_model_scratch_free(const tdm_model *m, tdm_model_scratch *sc);

/* Slices of a scratch for one step's rows: the tensors the passes use. */
typedef struct tdm_model_views {
    size_t rows;
    tdm_model_buffers b; /* b.dropped[l]: NULL also when not training */
    tdm_tensor **out;    /* [layers]: b.dropped[l] when training with dropout, else
                            b.a[l] (not owned) */
} tdm_model_views;

tdm_status tdm_model_views_make(const tdm_model *m, tdm_model_scratch *sc, size_t rows,
                                int training, tdm_model_views *v);
void tdm_model_views_free(tdm_model_views *v);

/* The forward pass of v->rows rows of x through every layer, with copy `copy` of
 * the variables; dropout when training (step and first_row pick the masks). The
 * model's output is then v->out[layers - 1]. */
typedef struct tdm_forward_args {
    const tdm_tensor *x;
    size_t copy, first_row;
    uint64_t step;
    int training;
} tdm_forward_args;
tdm_status tdm_model_forward(const tdm_model *m, const tdm_model_views *v,
                             const tdm_forward_args *fa);

/* Layer l's dropout key for a step. */
uint64_t tdm_model_dropout_seed(const tdm_model *m, uint64_t step, size_t l);

/* y = layer l's dropout of x in a step; the backward pass is the same call on the
 * gradient. */
tdm_status tdm_model_dropout(const tdm_model *m, size_t l, uint64_t step, size_t first_row,
                             tdm_tensor *y, const tdm_tensor *x);

#endif
