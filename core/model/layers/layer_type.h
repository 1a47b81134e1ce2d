/* Internal: one kind of layer behind one interface. Each kind of
 * tandem/layer_kinds.def is a file here defining `tdm_layer_<name>`; the model's
 * plan, scratch, passes, initial values, saving and loading loop over the layers and
 * call their types, so that no code outside a kind's file asks which kind it is. */
#ifndef TDM_MODEL_LAYER_TYPE_H
#define TDM_MODEL_LAYER_TYPE_H

#include "model/model_impl.h"
#include "model/onnx/onnx_graph.h"

/* The tdm_layer fields a kind takes; the model refuses a layer that sets one its kind
 * does not take (units, vocab, activation, dropout, skip). Model files record the
 * settings under "<name><l>/" in this order, but for those its kernel's dims give. */
enum {
    TDM_TAKES_UNITS = 1u << 0,      /* from the kernel */
    TDM_TAKES_VOCAB = 1u << 1,      /* from the kernel */
    TDM_TAKES_ACTIVATION = 1u << 2, /* "activation" and "dropout": the output goes through
                                       both */
    TDM_TAKES_EPSILON = 1u << 3,    /* "epsilon" */
    TDM_TAKES_MOMENTUM = 1u << 4,   /* "momentum" */
    TDM_TAKES_SKIP = 1u << 5,       /* "skip" */
    TDM_TAKES_WINDOW = 1u << 6,     /* "window" (<h>x<w>) unless the kernel gives it, then
                                       "strides" (<h>x<w>) and "padding" */
    TDM_TAKES_HEADS = 1u << 7,      /* "heads" and "causal" */
    TDM_TAKES_DROPOUT = 1u << 8     /* "dropout" alone, which the layer applies itself */
};

/* How a kind stores its outputs with f16 activations. */
typedef enum tdm_layer_storage {
    TDM_STORE_AS_INPUT, /* in its input's dtype: its kernels take one dtype */
    TDM_STORE_HALF      /* f16, f32 as the output layer (the loss reads f32) */
} tdm_layer_storage;

typedef struct tdm_layer_type {
    const char *const *variables; /* its trainable variables' names after "<name><l>/",
                                     NULL-terminated; the first is its kernel */
    const char *const *states;    /* its moving statistics' likewise, per channel */
    unsigned takes;               /* TDM_TAKES_* */
    int flattens;                 /* its output is a flat vector, no image to convolve */
    int sizes_input;              /* its kernel's rows are the model's flat input, so a
                                     file need not record the input's shape */
    tdm_layer_storage storage;
    size_t kernel_rank;           /* of the first variable, whose dims loading reads */
    /* Its second variable is a bias, whose gradient (the column sums of g[l]) the
     * model takes with the activation's (tdm_op_bias_activation_grad): its backward
     * leaves it be. */
    int bias_grad_with_activation;

    /* The rules of the settings it takes, for layer l of model function f; NULL:
     * none. The model checks them first, then that it sets no other. */
    tdm_status (*check)(const tdm_layer *d, size_t l, const char *f);
    /* plans[l]'s output image (and window) from its input image. */
    tdm_status (*plan)(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                       const char *f);
    /* Variable k's shape. */
    tdm_shape (*variable_shape)(const tdm_layer *d, const tdm_layer_plan *p, size_t k);
    /* The columns of a row of its matrix product's input, which mixed precision
     * rounds into halves: its input's features, a convolution's im2col matrix; NULL:
     * no matrix product. */
    size_t (*product_columns)(const tdm_layer_plan *p);
    /* Variable k's seeded initial value, count floats (zeros already). */
    void (*initial)(const tdm_model *m, size_t l, size_t k, float *value, size_t count);
    /* The f32 columns per row of each of its work buffers (model_impl.h's
     * tdm_model_buffers.work), 0 for none; NULL: none. */
    void (*work)(const tdm_model *m, size_t l, size_t columns[TDM_LAYER_WORK]);
    /* The layer's buffers besides z, a, dropped, g and work, in sc for rows rows;
     * NULL: none. */
    tdm_status (*reserve)(const tdm_model *m, size_t l, tdm_model_scratch *sc, size_t rows);
    /* z[l] from the layer's input x (a merge reads its others with
     * tdm_model_input_of). */
    tdm_status (*forward)(const tdm_model *m, const tdm_model_views *v, size_t l,
                          const tdm_tensor *x, const tdm_forward_args *fa);
    /* From g[l] = d(loss) / dz: its variables' gradients, each marked ready, and d(loss)
     * / d(input k) into tdm_model_input_grad(m, v, l, k) (none for the model's input);
     * x is its first input. */
    tdm_status (*backward)(const tdm_model *m, const tdm_model_views *v, size_t l,
                           const tdm_loss_args *a, const tdm_tensor *x);
    /* Loading: the settings its kernel's dims give (units, a window, a vocabulary). */
    void (*from_kernel)(tdm_layer *d, const uint64_t *dims);
    /* The ONNX export (model_onnx.c): its nodes from in[k], its inputs as the graph
     * keeps every value, [N, features], into *out, before the activation that the
     * export adds for a kind that takes one; NULL: a kind the export refuses. */
    tdm_status (*onnx)(const tdm_model *m, size_t l, tdm_onnx_graph *g, const tdm_onnx_value *in,
                       tdm_onnx_value *out);
} tdm_layer_type;

/* The type of a kind tdm_model_plan has checked (layer_registry.c, above the kinds:
 * no kind calls it). */
const tdm_layer_type *tdm_layer_type_of(tdm_layer_kind kind);

/* layer_helpers.c, below the kinds: how many names a NULL-terminated list has. */
size_t tdm_layer_name_count(const char *const *names);

/* value uniform in [-limit, limit), drawn on the host from the model's seed and the
 * layer, so that every device count starts from the same weights. */
void tdm_layer_uniform(const tdm_model *m, size_t l, double limit, float *value, size_t count);

/* The same for layer l's variable k, from a stream of its own (k 0: the layer's). */
void tdm_layer_uniform_of(const tdm_model *m, size_t l, size_t k, double limit, float *value,
                          size_t count);

/* The first rows rows of width columns of t, its memory from the start (a sequence's
 * [examples, T * width] as [examples * T, width]). */
tdm_status tdm_layer_positions_view(const tdm_tensor *t, size_t rows, size_t width,
                                    tdm_tensor **out);

/* out [width] = the sum of x's rows, x [rows * positions, width] of a step's rows:
 * over the examples into layer l's partial buffer [positions * width] (at least), then
 * over the positions, so that neither loop is longer than the batch or the sequence
 * (a driver may end a long loop early: kernel_run.c). */
tdm_status tdm_layer_position_sums(const tdm_model_views *v, size_t l, size_t positions,
                                   tdm_tensor *out, const tdm_tensor *x);

/* A sequence layer's plan: the output keeps the input's shape, in f32 activations
 * (refused with f16 ones). */
tdm_status tdm_layer_sequence_plan(const tdm_model_options *o, tdm_layer_plan *plans, size_t l,
                                   const char *f);

/* Glorot uniform (He uniform for relu and gelu) over the kernel's fans. */
void tdm_layer_glorot(const tdm_model *m, size_t l, size_t fan_in, size_t fan_out, float *value,
                      size_t count);

/* Layer l's variables' gradients marked ready: their all-reduce may start while the
 * layers below are differentiated. */
tdm_status tdm_layer_grads_ready(const tdm_model *m, size_t l, const tdm_loss_args *a);

/* What dense and conv2d share: their variables' names, "kernel" and "bias", and the
 * check of their units, activation and dropout rate. */
extern const char *const tdm_kernel_and_bias[];
tdm_status tdm_layer_check_units(const tdm_layer *d, size_t l, const char *f);

#endif
