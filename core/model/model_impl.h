/* Internal: the sequential model's struct, shared by its construction, its loss
 * function and its evaluation. */
#ifndef TDM_TRAIN_MODEL_IMPL_H
#define TDM_TRAIN_MODEL_IMPL_H

#include "tandem/model.h"

#include "ops/ops_mixed.h"
#include "tandem/nn.h"

/* A layer's place in the model, derived once from the options: its input and output
 * as images (a flat vector is 1 x 1 x features), its window, its variables. */
typedef struct tdm_layer_plan {
    size_t in_h, in_w, in_c;
    size_t out_h, out_w, out_c;
    tdm_window win;   /* conv2d and pooling */
    size_t first_var; /* its variables, in its type's order, from m->vars[first_var] */
    size_t var_count;
    size_t first_state; /* its moving statistics (batch norm's mean, then variance), from
                           m->states[first_state] */
    size_t state_count;
    tdm_dtype storage; /* its outputs z, a and dropout's: f32, or f16 activations */
    /* Its inputs in the graph, resolved (model_graph.c): earlier layers' indices or
     * TDM_MODEL_INPUT; the layer before where it names none, and a residual's
     * shortcut as its second. first_grad[k]: the backward pass reaches input k
     * first here, and writes its gradient; a later reader adds to it. */
    size_t input_count;
    int inputs[TDM_LAYER_MAX_INPUTS];
    unsigned char first_grad[TDM_LAYER_MAX_INPUTS];
    /* Its ReLU's gradient is taken by its one reader, a max pooling, in the launch
     * that routes the pooling's gradient (tdm_pool2d_grad's relu): one pass over the
     * layer's activations fewer. */
    unsigned char relu_grad_by_reader;
} tdm_layer_plan;

static inline size_t tdm_plan_in_features(const tdm_layer_plan *p)
{
    return p->in_h * p->in_w * p->in_c;
}

static inline size_t tdm_plan_out_features(const tdm_layer_plan *p)
{
    return p->out_h * p->out_w * p->out_c;
}

/* The most ids an embedding knows: every id is exact as a float32 input. */
#define TDM_EMBEDDING_MAX_VOCAB ((size_t)1 << 24)

/* The options checked, and the plan of every layer in plans[layer_count]; input_features is
 * set from the image where it is 0. */
tdm_status tdm_model_plan(tdm_model_options *o, tdm_layer_plan *plans, const char *func);

/* The shape of the layer's variable k. */
tdm_shape tdm_layer_variable_shape(const tdm_layer *d, const tdm_layer_plan *p, size_t k);

/* Whether every replica's device holds the model's var_count variables, each in one
 * buffer (model_room.c): checked once planned, before any value is built on the
 * host, where a model far too large took minutes and gigabytes to be refused. */
tdm_status tdm_model_check_room(const tdm_model *m, size_t var_count, const char *func);

/* The index of layer l's input k among every layer's inputs. */
static inline size_t tdm_model_edge(size_t l, size_t k)
{
    return l * TDM_LAYER_MAX_INPUTS + k;
}

/* The most work buffers a layer has (attention's: QKV, the weights, ...). */
#define TDM_LAYER_WORK 6

/* The index of layer l's work buffer k. */
static inline size_t tdm_model_work(size_t l, size_t k)
{
    return l * TDM_LAYER_WORK + k;
}

/* The tensors of the passes: per layer, and the loss's. */
typedef struct tdm_model_buffers {
    size_t layers;
    tdm_tensor **z;         /* [layers]: the layer's product before its activation (x W + b,
                               conv2d(x, f) + b), or a pooling's output */
    tdm_tensor **a;         /* [layers]: act(z); NULL for pooling */
    tdm_tensor **dropped;   /* [layers]: dropout(a), NULL for layers without dropout */
    tdm_tensor **g;         /* [layers]: d(loss) / d(layer output), then / d(z) */
    tdm_tensor **col;       /* [layers]: a lowered conv2d's im2col matrix, [rows, out_h *
                               out_w * kh * kw * c], or a layer norm's dy * x_hat [rows,
                               features]; NULL for other layers */
    tdm_tensor **row_stats; /* [layers]: a layer norm's mean, then inv_std, of each row's
                               positions, [rows, 2 * positions]; NULL for others */
    tdm_tensor **norm;      /* [layers]: batch norm's per-channel values, [6, channels]:
                               sums of x and x * x (then of dy and dy * x_hat), mean,
                               inv_std, and two of scratch; NULL for other layers */
    tdm_tensor **partial;   /* [layers]: conv2d's bias gradient summed over the batch only,
                               [out_h * out_w, units]; NULL for other layers */
    tdm_tensor **work;      /* [layers * TDM_LAYER_WORK], at tdm_model_work(l, k): a
                               layer's own f32 rows (its type's work hook), NULL where
                               it has none */
    tdm_tensor **dx;        /* [layers * TDM_LAYER_MAX_INPUTS], at tdm_model_edge(l, k):
                               d(loss) / d(layer l's input k) before it is added to what a
                               later reader gave that input, f32; NULL where input k's
                               gradient starts at layer l */
    tdm_tensor *input[TDM_MODEL_MAX_INPUTS]; /* [rows, input_widths[k]]: a model of several
                                                inputs, each split from the features; NULL
                                                in a model of one */
    tdm_tensor *ids;        /* [rows, the embedding's input width], i32: its ids, or NULL */
    tdm_tensor *losses;     /* [rows, outputs]: per-output losses; [rows, 1] per-example
                               ones for the softmax cross-entropies */
    tdm_tensor *target;     /* [rows, outputs]: one-hot labels (mean squared error) */
} tdm_model_buffers;

/* How a layer computes on one device: a convolution's algorithm (DIRECT, LOWERED,
 * IMPLICIT or WINOGRAD, or MEASURED until timed) and, for dense and conv2d layers, its
 * products' precision (F16 or F32, or MEASURED until timed). */
typedef struct tdm_layer_choice {
    tdm_conv_algorithm conv;
    tdm_mixed_products products;
} tdm_layer_choice;

/* One replica's buffers, rows_capacity rows each; a step uses slices of them with its
 * own row count. */
typedef struct tdm_model_scratch {
    tdm_device *device;
    size_t rows_capacity;
    tdm_model_buffers b;
    tdm_tensor *input;        /* [rows_capacity, input_features]: inference's upload, or NULL */
    tdm_halves halves;        /* mixed precision: f16 copies of a product's operands, each as large
                                 as the largest operand; NULL members where no layer's products
                                 take f16 operands */
    tdm_layer_choice *choice; /* [layers]: how layer l computes on the device (kept while the
                                 device stays) */
} tdm_model_scratch;

struct tdm_model {
    tdm_strategy *strategy;
    tdm_model_options opts;
    tdm_layer *layers;
    tdm_layer_plan *plans; /* [layer_count] */
    size_t var_count;
    tdm_variable **vars; /* [var_count]: per dense or conv2d layer kernel then bias, per
                            batch norm gamma then beta */
    size_t state_count;
    tdm_variable **states;      /* [state_count]: per batch norm its moving mean and variance */
    tdm_model_scratch *scratch; /* one per replica */
    tdm_model_scratch eval;     /* on the first device, for evaluation and prediction */
    float *standardize; /* [2 * input_features]: mean then divisor (tdm_standardize_params) of
                           the input standardisation, or NULL */
    float *std;         /* [input_features]: its std as given, for saving */
    char **class_names; /* [output count]: the classes' names, or NULL */
};

/* The class names as the model file keeps them, comma-separated: a string to free,
 * or NULL when the model has none (or no memory). */
char *tdm_model_class_names_joined(const tdm_model *m);
/* From a file's comma-separated list, checked as tdm_model_set_class_names does. */
tdm_status tdm_model_set_class_names_joined(tdm_model *m, const char *joined);
void tdm_model_class_names_free(tdm_model *m);

/* Layer l's variable k's name, "<kind><l>/<its name>": "dense0/kernel",
 * "batch_norm1/beta". */
void tdm_layer_variable_name(tdm_layer_kind kind, size_t l, size_t k, char *buf, size_t size);

/* Layer l's moving statistic k's name: "batch_norm<l>/moving_mean". */
void tdm_layer_state_name(tdm_layer_kind kind, size_t l, size_t k, char *buf, size_t size);

/* Whether the model's loss is per output (the elementwise kinds), not per example (the
 * softmax cross-entropies). */
int tdm_model_loss_per_output(const tdm_model *m);

/* Whether labels (a tensor's or a dataset's: dtype, width) fit the model's loss and
 * outputs; else TDM_ERR_INVALID_ARGUMENT saying why, naming func (model_labels.c). */
tdm_status tdm_model_check_labels(const tdm_model *m, tdm_dtype dtype, size_t width,
                                  const char *func);

/* Batch norm's epsilon and momentum, the defaults where 0 (layers/normalise.c). */
float tdm_layer_epsilon(const tdm_layer *d);
float tdm_layer_momentum(const tdm_layer *d);

/* Variable i's name. */
void tdm_model_variable_name(const tdm_model *m, size_t i, char *buf, size_t size);

/* The layer variable i belongs to. */
size_t tdm_model_variable_layer(const tdm_model *m, size_t i);

/* The layer moving statistic k belongs to, and its name. */
size_t tdm_model_state_layer(const tdm_model *m, size_t k);
void tdm_model_state_name(const tdm_model *m, size_t k, char *buf, size_t size);

/* tdm_model_create with initial values: values[i] (host float32, variable i's shape),
 * then values[var_count + k] for the moving statistic k, or, where values or an
 * entry is NULL, the seeded initialisation. */
tdm_status tdm_model_create_with(tdm_strategy *s, const tdm_model_options *opts,
                                 const float *const *values, const char *func, tdm_model **out);

/* The forward pass of `rows` host rows on the first device, in chunks of the eval
 * scratch, with the model's outputs [rows, outputs] read back into out. The rows go
 * in as they are (no standardisation). */
tdm_status tdm_model_infer(tdm_model *m, const float *rows_in, size_t rows, float *out);

/* Makes sure sc holds rows rows on dev, for training (forward and backward passes) or
 * not; measures the convolutions whose choice waits for it. */
tdm_status tdm_model_scratch_reserve(const tdm_model *m, tdm_model_scratch *sc, tdm_device *dev,
                                     size_t rows, int training);
void tdm_model_scratch_free(const tdm_model *m, tdm_model_scratch *sc);
/* About the bytes a row of the passes' buffers takes (their activations and work),
 * for sizing inference's chunks. */
size_t tdm_model_row_bytes(const tdm_model *m);

/* Slices of a scratch for one step's rows: the tensors the passes use. */
typedef struct tdm_model_views {
    size_t rows;
    tdm_model_buffers b;            /* b.dropped[l]: NULL also when not training */
    tdm_tensor **out;               /* [layers]: b.dropped[l] when training with dropout, else
                                       b.a[l] (not owned) */
    tdm_halves halves;              /* the scratch's (not owned) */
    const tdm_layer_choice *choice; /* the scratch's (not owned) */
} tdm_model_views;

/* The halves layer l's products round their operands into, or NULL where its products
 * are f32. */
static inline const tdm_halves *tdm_model_layer_halves(const tdm_model_views *v, size_t l)
{
    return v->choice[l].products == TDM_MIXED_F16 ? &v->halves : NULL;
}

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
    tdm_replica_context *rc; /* training: the replica, whose batch norms all-reduce */
    size_t global_rows;      /* training: the step's global batch */
} tdm_forward_args;
tdm_status tdm_model_forward(const tdm_model *m, const tdm_model_views *v,
                             const tdm_forward_args *fa);

/* The graph (model_graph.c). Layer l's inputs resolved into plans[l] and checked:
 * each an earlier layer or the model's input, as many as its kind takes, every layer
 * but the last read by a later one; then which reader of each input comes first in
 * the backward pass. */
tdm_status tdm_model_graph_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                const char *func);
void tdm_model_graph_first_grads(const tdm_model_options *o, tdm_layer_plan *plans);
/* How many inputs of later layers read layer l (a layer reading it twice, two). */
size_t tdm_model_graph_readers(const tdm_model_options *o, const tdm_layer_plan *plans, size_t l);
/* Input k of plan p as an image [h, w, c] (a flat input: 1 x 1 x features). */
void tdm_model_input_image(const tdm_model_options *o, const tdm_layer_plan *plans,
                           const tdm_layer_plan *p, size_t k, size_t image[3]);
/* Input k of layer l as the passes read it: an earlier output, or the model's input:
 * x, or its part split from x at the forward pass's start in a model of several. */
const tdm_tensor *tdm_model_input_of(const tdm_model_views *v, const tdm_layer_plan *p, size_t k,
                                     const tdm_tensor *x);
/* The dtype input k of plan p is stored in (the model's input: f32). */
tdm_dtype tdm_model_input_storage(const tdm_layer_plan *plans, const tdm_layer_plan *p,
                                  size_t k);
/* Where layer l's backward pass writes d(loss) / d(input k): that input's gradient
 * buffer where it comes first, else v->b.dx[l]; NULL for the model's input, which
 * takes no gradient. tdm_model_input_grad_given then adds v->b.dx[l] in. */
tdm_tensor *tdm_model_input_grad(const tdm_model *m, const tdm_model_views *v, size_t l,
                                 size_t k);
tdm_status tdm_model_input_grad_given(const tdm_model *m, const tdm_model_views *v, size_t l,
                                      size_t k);

/* *out = where dense or conv2d layer l's product goes before its bias is added into
 * z[l], viewed as shape: z[l] itself, or with f16 activations g[l], f32 and of z's
 * size, which the backward pass writes only later. */
static inline tdm_status tdm_model_product(const tdm_model *m, const tdm_model_views *v, size_t l,
                                           const tdm_shape *shape, tdm_tensor **out)
{
    *out = NULL;
    if (m->plans[l].storage == TDM_F32)
        return tdm_tensor_slice(v->b.z[l], 0, shape, out);
    return tdm_tensor_slice(v->b.g[l], 0, shape, out);
}

/* How m's convolution layer l computes on dev by the options' rule, its products'
 * precision being `products`: DIRECT, LOWERED, IMPLICIT, WINOGRAD, or MEASURED where
 * that waits for tdm_model_conv_measure (measured convolutions, or products whose
 * precision waits to be timed). */
tdm_conv_algorithm tdm_model_conv_rule(const tdm_model *m, const tdm_device *dev, size_t l,
                                       tdm_mixed_products products);

/* Whether dev runs the implicit convolutions (the Vulkan and reference backends'
 * kernels, and oneDNN's on OpenCL CPU devices; the others' fallback is lowered:
 * tdm_kernel_has_fallback). layers/conv2d_ways.c, as what follows. */
int tdm_conv_has_implicit(const tdm_device *dev);

/* Whether dev computes an implicit ReLU convolution's product, bias and ReLU in one
 * launch (conv2d_implicit_bias_relu: oneDNN's on OpenCL CPU devices, the Vulkan and
 * reference backends' kernels). */
int tdm_conv_fuses_relu(const tdm_device *dev);
/* Whether dev computes an implicit convolution's filter and bias gradients in one
 * launch (conv2d_implicit_grad_filter_bias: oneDNN's on OpenCL CPU devices, the
 * reference's; Vulkan sums the bias apart). */
int tdm_conv_fuses_bias_grad(const tdm_device *dev);

/* Whether a convolution computing a on dev keeps an im2col matrix: lowered, measured
 * (the race needs one), and Winograd's filter gradient where dev lacks the implicit
 * kernels. */
int tdm_conv_keeps_columns(const tdm_device *dev, tdm_conv_algorithm a);

/* Layer l's products' precision on a device by the options, before any measurement:
 * F32 in f32 models and for layers without products, F16 with f16 activations (their
 * stored operands are halves) or where the options ask for it, else the options'. */
tdm_mixed_products tdm_model_products_rule(const tdm_model *m, size_t l);

/* Decides every sc->choice[l].conv that waits, timing every way the device has on rows
 * rows (forward, and the gradients in training) with sc's im2col buffers, and with it
 * the products' precision of a convolution whose precision waits too; nothing on 0
 * rows. */
tdm_status tdm_model_conv_measure(const tdm_model *m, tdm_model_scratch *sc, size_t rows,
                                  int training);

/* Decides every dense layer's sc->choice[l].products that waits, timing the layer's
 * products with f16 operands and in f32 on rows rows (forward, and the gradients in
 * training); nothing on 0 rows. */
tdm_status tdm_model_products_measure(const tdm_model *m, tdm_model_scratch *sc, size_t rows,
                                      int training);

/* Layer l's dropout key for a step. */
uint64_t tdm_model_dropout_seed(const tdm_model *m, uint64_t step, size_t l);

/* y = layer l's dropout of x in a step; the backward pass is the same call on the
 * gradient. */
tdm_status tdm_model_dropout(const tdm_model *m, size_t l, uint64_t step, size_t first_row,
                             tdm_tensor *y, const tdm_tensor *x);

#endif
