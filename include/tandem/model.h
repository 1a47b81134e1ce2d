/* tandem: a model of embedding, dense, convolution, pooling, normalisation,
 * residual and merging layers, in sequence or as a graph, with its loss, trained by the train op
 * (train.h): the model's variables live on every device of its strategy, and
 * tdm_model_loss is a loss function computing one replica's loss and gradients
 * with an explicit forward and backward pass over the kernel table. A trained model
 * predicts, and is saved to and loaded from a model file. */
#ifndef TANDEM_MODEL_H
#define TANDEM_MODEL_H

#include "tandem/dataset.h"
#include "tandem/nn.h"
#include "tandem/train.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_model tdm_model;

/* The losses: TDM_LOSS_SOFTMAX_CROSS_ENTROPY, TDM_LOSS_MEAN_SQUARED_ERROR, ...
 * (tandem/loss_kinds.def lists them with what each computes). */
typedef enum tdm_loss_kind {
#define TDM_LOSS_KIND(id, name, alias, labels, what) TDM_LOSS_##id,
#include "tandem/loss_kinds.def"
#undef TDM_LOSS_KIND
    TDM_LOSS_KIND_COUNT
} tdm_loss_kind;

/* What a loss compares a model's outputs with: the labels column of
 * tandem/loss_kinds.def. */
typedef enum tdm_loss_labels {
    TDM_LOSS_TAKES_CLASSES = 1 << 0, /* int32 class indices (a dataset of classes) */
    TDM_LOSS_TAKES_TARGETS = 1 << 1  /* float targets, one per output */
} tdm_loss_labels;

/* The loss's name in tandem/loss_kinds.def ("softmax_cross_entropy", ...), the one
 * model files record; "unknown" out of range. */
TDM_API const char *tdm_loss_kind_name(tdm_loss_kind kind);
/* Keras' name for it ("sparse_categorical_crossentropy", "mse", ...); "unknown" out
 * of range. */
TDM_API const char *tdm_loss_kind_alias(tdm_loss_kind kind);
/* Those aliases in the enum's order, NULL-terminated (static: never freed). */
TDM_API const char *const *tdm_loss_kind_aliases(void);
/* The kind a name or an alias names. TDM_ERR_INVALID_ARGUMENT, listing the names, for
 * another. */
TDM_API tdm_status tdm_loss_kind_parse(const char *name, tdm_loss_kind *out);
/* The kind's tdm_loss_labels bits; 0 out of range. */
TDM_API unsigned tdm_loss_kind_labels(tdm_loss_kind kind);

/* The kinds of layer: TDM_LAYER_DENSE, TDM_LAYER_CONV2D, ... (tandem/layer_kinds.def
 * lists them with what each computes). */
typedef enum tdm_layer_kind {
#define TDM_LAYER_KIND(id, name, traits, what) TDM_LAYER_##id,
#include "tandem/layer_kinds.def"
#undef TDM_LAYER_KIND
    TDM_LAYER_KIND_COUNT
} tdm_layer_kind;

/* The kind's name in tandem/layer_kinds.def ("dense", "conv2d", ...): the name model
 * files record (and variables' names start with); "unknown" out of range. */
TDM_API const char *tdm_layer_kind_name(tdm_layer_kind kind);
/* Those names in the enum's order, NULL-terminated (static: never freed). */
TDM_API const char *const *tdm_layer_kind_names(void);

/* What a kind of layer takes and needs: the traits column of tandem/layer_kinds.def. */
typedef enum tdm_layer_trait {
    TDM_LAYER_TAKES_ACTIVATION = 1 << 0, /* an activation and a dropout rate */
    TDM_LAYER_NEEDS_IMAGE = 1 << 1,      /* an image input [height, width, channels]: the
                                            model's, or a layer's that does not flatten */
    TDM_LAYER_MERGES = 1 << 2,           /* two or more inputs (tdm_layer.inputs), no
                                            variables */
    TDM_LAYER_TAKES_DROPOUT = 1 << 3     /* a dropout rate but no activation (attention:
                                            on its weights) */
} tdm_layer_trait;
/* The kind's tdm_layer_trait bits; 0 out of range. */
TDM_API unsigned tdm_layer_kind_traits(tdm_layer_kind kind);

typedef enum tdm_padding {
    TDM_PADDING_SAME, /* ceil(in / stride) windows, zero padding split around the image */
    TDM_PADDING_VALID /* only windows wholly inside the image */
} tdm_padding;

/* The most inputs one layer takes (a merge's). */
#define TDM_LAYER_MAX_INPUTS 8
/* The most inputs a model takes (tdm_model_options.inputs). */
#define TDM_MODEL_MAX_INPUTS 8
/* An input of a layer that is the model's input k (0 to inputs - 1), not an earlier
 * layer's output; TDM_MODEL_INPUT is input 0, the whole input of a model of one. */
#define TDM_MODEL_INPUT_AT(k) (-1 - (int)(k))
#define TDM_MODEL_INPUT TDM_MODEL_INPUT_AT(0)

/* One layer, a node of the model's graph; images are NHWC (TensorFlow's default
 * layout). TDM_DENSE and the macros below it initialise one. A layer reads the
 * layer before it (the first, the model's input) unless it names its inputs: then
 * input_count of inputs[], each an earlier layer's index or TDM_MODEL_INPUT. A
 * merge (add, concatenate, multiply) names two or more; any other kind one. The
 * model's output is its last layer's. */
typedef struct tdm_layer {
    tdm_layer_kind kind;
    size_t units;              /* dense: outputs; conv2d: filters (output channels) */
    tdm_activation activation; /* dense and conv2d */
    float dropout;             /* dense and conv2d (of the output), attention (of its
                                  weights): rate in [0, 1), in training only */
    size_t kernel_h, kernel_w; /* conv2d and pooling: the window */
    size_t stride_h, stride_w; /* conv2d and pooling; 0: 1 for conv2d, the window for
                                  pooling (Keras' defaults) */
    tdm_padding padding;       /* conv2d and pooling */
    float epsilon;             /* batch and layer norm: added to the variance; 0: 1e-3 */
    float momentum;            /* batch norm: of the moving statistics, in [0, 1); 0: 0.99 */
    size_t skip;               /* residual: how many layers back its shortcut starts, from 1
                                  (y = x + the previous layer's input) to the layer's index */
    size_t vocab;              /* embedding: the ids it knows, 1 to 2^24 (every id is exact
                                  as a float32 input) */
    size_t heads;              /* attention: its heads, which divide the input's channels */
    int causal;                /* attention: each position attends only to itself and the
                                  positions before it (a language model's mask) */
    size_t input_count;        /* 0: the layer before (or the model's input) */
    int inputs[TDM_LAYER_MAX_INPUTS]; /* earlier layers' indices, or TDM_MODEL_INPUT_AT(k) */
} tdm_layer;

#define TDM_DENSE(units_, activation_, dropout_)                                                   \
    {                                                                                              \
        .kind = TDM_LAYER_DENSE, .units = (units_), .activation = (activation_),                   \
        .dropout = (dropout_)                                                                      \
    }
/* filters_ filters of k_ x k_, stride 1, SAME padding */
#define TDM_CONV2D(filters_, k_, activation_)                                                      \
    {                                                                                              \
        .kind = TDM_LAYER_CONV2D, .units = (filters_), .activation = (activation_),                \
        .kernel_h = (k_), .kernel_w = (k_)                                                         \
    }
/* windows of k_ x k_ with stride k_, SAME padding */
#define TDM_MAX_POOL2D(k_)                                                                         \
    {                                                                                              \
        .kind = TDM_LAYER_MAX_POOL2D, .kernel_h = (k_), .kernel_w = (k_)                           \
    }
#define TDM_AVG_POOL2D(k_)                                                                         \
    {                                                                                              \
        .kind = TDM_LAYER_AVG_POOL2D, .kernel_h = (k_), .kernel_w = (k_)                           \
    }
/* Keras' defaults: epsilon 1e-3, momentum 0.99 */
#define TDM_BATCH_NORM()                                                                           \
    {                                                                                              \
        .kind = TDM_LAYER_BATCH_NORM                                                               \
    }
#define TDM_LAYER_NORM()                                                                           \
    {                                                                                              \
        .kind = TDM_LAYER_LAYER_NORM                                                               \
    }
/* each channel's mean over the whole image */
#define TDM_GLOBAL_AVG_POOL2D()                                                                    \
    {                                                                                              \
        .kind = TDM_LAYER_GLOBAL_AVG_POOL2D                                                        \
    }
/* vocab_ ids, each a vector of dim_ values (initially uniform in [-0.05, 0.05]) */
#define TDM_EMBEDDING(vocab_, dim_)                                                                \
    {                                                                                              \
        .kind = TDM_LAYER_EMBEDDING, .units = (dim_), .vocab = (vocab_)                            \
    }
/* the merges of two layers' outputs (their indices, or TDM_MODEL_INPUT) */
#define TDM_ADD(a_, b_)                                                                            \
    {                                                                                              \
        .kind = TDM_LAYER_ADD, .input_count = 2, .inputs = {(a_), (b_)}                            \
    }
#define TDM_CONCATENATE(a_, b_)                                                                    \
    {                                                                                              \
        .kind = TDM_LAYER_CONCATENATE, .input_count = 2, .inputs = {(a_), (b_)}                    \
    }
#define TDM_MULTIPLY(a_, b_)                                                                       \
    {                                                                                              \
        .kind = TDM_LAYER_MULTIPLY, .input_count = 2, .inputs = {(a_), (b_)}                       \
    }
/* learned positions of a sequence (initially uniform in [-0.05, 0.05]) */
#define TDM_POSITION_EMBEDDING()                                                                   \
    {                                                                                              \
        .kind = TDM_LAYER_POSITION_EMBEDDING                                                       \
    }
/* causal self-attention of heads_ heads */
#define TDM_ATTENTION(heads_)                                                                      \
    {                                                                                              \
        .kind = TDM_LAYER_ATTENTION, .heads = (heads_), .causal = 1                                \
    }
/* a transformer block's MLP: 4 C hidden units with GELU, back to C */
#define TDM_FEED_FORWARD()                                                                         \
    {                                                                                              \
        .kind = TDM_LAYER_FEED_FORWARD                                                             \
    }
/* adds the input of the layer skip_ layers back to its own input */
#define TDM_RESIDUAL(skip_)                                                                        \
    {                                                                                              \
        .kind = TDM_LAYER_RESIDUAL, .skip = (skip_)                                                \
    }

/* How the convolution layers compute: the direct kernels (each output element a sum in
 * a fixed order, the reference's bits), lowered to im2col and a matrix product (GEMM's
 * speed and its rounding), or implicit (the same products without the matrix). */
typedef enum tdm_conv_algorithm {
    TDM_CONV_AUTO = 0, /* implicit on CPU devices that have it (Vulkan's, and
                          OpenCL's through oneDNN), lowered on GPUs and other
                          devices, direct on the reference backend (measured on CPU
                          drivers and an H100, docs/PERFORMANCE.md); lowered where a
                          layer's products take f16 operands (mixed_products) */
    TDM_CONV_DIRECT,   /* f32 only: mixed precision's f16 operands are GEMM's */
    TDM_CONV_LOWERED,
    TDM_CONV_MEASURED /* per layer and per replica's device: every way the device has
                         (direct, lowered, implicit) timed on the replica's first rows
                         (forward, and in training the gradients), the fastest kept for
                         the model's life. Where two are close the winner can change
                         from run to run, and they round differently, so a run's
                         numbers are no longer a function of its inputs alone: a
                         checkpoint resumes bit for bit only where the same choices
                         are made again */
    ,
    TDM_CONV_IMPLICIT /* the lowered products as GEMMs that read the image where im2col
                         would copy it: no im2col matrix (Vulkan devices, OpenCL CPU
                         devices through oneDNN, the reference backend; lowered on
                         other OpenCL devices); f32 only, as direct */
    ,
    TDM_CONV_WINOGRAD /* 3x3 layers of stride 1: the forward and the input gradient as
                         Winograd F(2x2, 3x3), 16 GEMMs over transformed 4x4 tiles
                         (2.25x fewer multiply-adds, a little more rounding); the filter
                         gradient implicit, or lowered where the device lacks implicit.
                         Other layers as auto;
                         f32 only, as direct */
} tdm_conv_algorithm;

/* "auto", "direct", "lowered", "measured", "implicit", "winograd"; "unknown" out of
 * range. */
TDM_API const char *tdm_conv_algorithm_name(tdm_conv_algorithm a);
/* The algorithm of that name; TDM_ERR_NOT_FOUND listing the names for another. */
TDM_API tdm_status tdm_conv_algorithm_parse(const char *name, tdm_conv_algorithm *out);
/* The names tdm_conv_algorithm_parse accepts, in the enum's order, NULL-terminated
 * (static: never freed). */
TDM_API const char *const *tdm_conv_algorithm_names(void);

/* With compute_dtype TDM_F16, the precision of each dense and conv2d layer's matrix
 * products (forward, and in training both gradients) on each replica's device. */
typedef enum tdm_mixed_products {
    TDM_MIXED_MEASURED = 0, /* per layer and replica's device: the layer's products timed
                               with f16 operands and in f32 on the replica's first rows,
                               taking turns, and the faster kept for the model's life (a
                               convolution's f32 way is the one conv_algorithm gives in
                               f32, every way with TDM_CONV_MEASURED). Mixed precision
                               then never trains slower than f32 where a device's f16
                               products are slow (a CPU with no f16 arithmetic, a driver
                               that converts every operand). As with measured
                               convolutions, a run's numbers then depend on the choices
                               made. With f16 activations the products stay f16: their
                               stored operands are already halves */
    TDM_MIXED_F16,          /* every product with f16 operands and f32 sums */
    TDM_MIXED_F32           /* every product in f32: mixed precision's loss scaling with
                               f32's products */
} tdm_mixed_products;

/* "measured", "f16", "f32"; "unknown" out of range. */
TDM_API const char *tdm_mixed_products_name(tdm_mixed_products p);
/* The choice of that name; TDM_ERR_NOT_FOUND listing the names for another. */
TDM_API tdm_status tdm_mixed_products_parse(const char *name, tdm_mixed_products *out);
/* The names tdm_mixed_products_parse accepts, in the enum's order, NULL-terminated
 * (static: never freed). */
TDM_API const char *const *tdm_mixed_products_names(void);

/* A model's first layer sees input_features values per example; convolution and
 * pooling see them as an image [input_height, input_width, input_channels], which
 * must then be given (input_features 0 takes their product). A dense layer after an
 * image flattens it.
 *
 * A model of several inputs (Keras' Model([a, b], ...)) takes them side by side in
 * each example's features: input k is input_widths[k] columns, after those of the
 * inputs before it, and the widths sum to input_features (0 takes their sum). Input
 * 0 is the image where one is given (its width the image's size), the others flat
 * vectors. Layers name input k as TDM_MODEL_INPUT_AT(k), and each input is read by
 * some layer. */
typedef struct tdm_model_options {
    size_t size; /* sizeof(tdm_model_options) */
    size_t input_features;
    const tdm_layer *layers; /* the last is the output layer: dense, units = classes */
    size_t layer_count;
    tdm_loss_kind loss;
    tdm_loss_reduction reduction;
    uint64_t seed; /* initial weights (Glorot uniform, or He uniform for
                      relu and gelu; biases 0) and dropout masks */
    size_t input_height, input_width, input_channels; /* 0: a flat input */
    tdm_dtype compute_dtype;           /* TDM_F32 (0), or TDM_F16 for mixed precision: the matrix
                                          products of the dense and convolution layers, forward and
                                          backward, round their operands to f16 and sum in f32
                                          (convolutions through im2col on every backend), where
                                          mixed_products gives them f16 (by default where that
                                          measures at least as fast as f32). The
                                          variables stay f32, the optimizer updates them in f32, and
                                          everything else computes in f32. Train it with a loss
                                          scale (tdm_train_op_options.loss_scale): gradients below
                                          f16's range would round to zero, and an f16 overflow
                                          (infinity) then skips the step. */
    tdm_conv_algorithm conv_algorithm; /* TDM_CONV_AUTO (0) */
    tdm_dtype activation_dtype;        /* TDM_F32 (0), or TDM_F16 (with compute_dtype TDM_F16):
                                          the activations that the passes keep from the forward
                                          pass to the backward one (each layer's output before
                                          and after its activation, and dropout's) are stored as
                                          f16, in half the memory; the output layer's stay f32,
                                          as do the gradients and the loss. Every layer kind (a
                                          pooling or normalisation output layer is refused);
                                          a device without f16 storage (Vulkan's
                                          storageBuffer16BitAccess) is refused with
                                          TDM_ERR_UNSUPPORTED. */
    tdm_mixed_products mixed_products; /* TDM_MIXED_MEASURED (0): with compute_dtype TDM_F16,
                                          which products take f16 operands (ignored in f32) */
    size_t inputs;        /* the model's inputs: 0 or 1 for one, of input_features; 2 to
                             TDM_MODEL_MAX_INPUTS for several, of input_widths */
    size_t input_widths[TDM_MODEL_MAX_INPUTS]; /* with several inputs, input k's features */
    float huber_delta;    /* TDM_LOSS_HUBER's delta, > 0; 0 takes Keras' default, 1 */
    uint32_t reserved[1]; /* 0 (the INIT macro's): room for later fields, which a caller
                             built before them leaves 0 */
} tdm_model_options;

#define TDM_MODEL_OPTIONS_INIT                                                                     \
    {                                                                                              \
        .size = sizeof(tdm_model_options), .loss = TDM_LOSS_SOFTMAX_CROSS_ENTROPY,                 \
        .reduction = TDM_LOSS_SUM_OVER_BATCH_SIZE                                                  \
    }

/* Creates the model's variables on the strategy, named by layer kind and index:
 * "dense<i>/kernel" [in, units] and "dense<i>/bias" [units], "conv2d<i>/kernel" [kh,
 * kw, c, units] and "conv2d<i>/bias" [units], "batch_norm<i>/gamma" and
 * "batch_norm<i>/beta" [channels] (layer norm likewise); pooling has none. Batch
 * normalisation also keeps "batch_norm<i>/moving_mean" and
 * "batch_norm<i>/moving_variance": sync-on-read variables with aggregation MEAN, not
 * trainable, which every replica updates with the same global statistics in each
 * training step (TensorFlow's SyncBatchNormalization), so a cross-replica read gives
 * them. Cross-replica or default mode. */
TDM_API tdm_status tdm_model_create(tdm_strategy *s, const tdm_model_options *opts,
                                    tdm_model **out);

/* The strategy the model's variables live on; NULL for NULL. */
TDM_API tdm_strategy *tdm_model_strategy(const tdm_model *m);

/* Releases the model and its variables. NULL-safe. */
TDM_API void tdm_model_destroy(tdm_model *m);

/* The trainable variables in layer order, kernel before bias (gamma before beta): 2
 * per dense, conv2d, batch-norm or layer-norm layer. The moving statistics are not among them. */
TDM_API size_t tdm_model_variable_count(const tdm_model *m);
TDM_API tdm_variable *tdm_model_variable(const tdm_model *m, size_t i);

/* The variables that are not trained: per batch-norm layer its moving mean, then its
 * moving variance, in layer order; NULL past the end. */
TDM_API size_t tdm_model_state_count(const tdm_model *m);
TDM_API tdm_variable *tdm_model_state(const tdm_model *m, size_t k);

/* Trainable parameters over every layer. */
TDM_API size_t tdm_model_parameter_count(const tdm_model *m);

/* Features the model takes, and outputs it gives (the last layer's units); 0 for
 * NULL. */
TDM_API size_t tdm_model_input_count(const tdm_model *m);
/* The model's inputs (1 for a model of one; 0 for NULL), each one's features into
 * widths[k] for k below max (widths may be NULL): the columns of the features that
 * input k takes, in order. */
TDM_API size_t tdm_model_input_widths(const tdm_model *m, size_t *widths, size_t max);
TDM_API size_t tdm_model_output_count(const tdm_model *m);
/* The positions of the output layer's image (height x width; 1 for a flat output, 0
 * for NULL): with as many class labels per example (tdm_dataset_from_sequences), the
 * sparse softmax cross-entropy takes one per position, each over the position's
 * output_count / positions channels. */
TDM_API size_t tdm_model_output_positions(const tdm_model *m);

/* How conv2d layer `layer` computes on local replica `replica`'s device:
 * TDM_CONV_DIRECT, TDM_CONV_LOWERED or TDM_CONV_IMPLICIT, or TDM_CONV_MEASURED while a
 * measured choice waits for the replica's first step. TDM_ERR_INVALID_ARGUMENT for another layer
 * kind or an index out of range. */
TDM_API tdm_status tdm_model_conv_algorithm_used(const tdm_model *m, size_t replica, size_t layer,
                                                 tdm_conv_algorithm *out);

/* The precision of dense or conv2d layer `layer`'s products on local replica
 * `replica`'s device: TDM_MIXED_F16 or TDM_MIXED_F32, or TDM_MIXED_MEASURED while a
 * measured choice waits for the replica's first step (TDM_MIXED_F32 in a model of
 * compute_dtype TDM_F32). TDM_ERR_INVALID_ARGUMENT for another layer kind or an index
 * out of range. */
TDM_API tdm_status tdm_model_mixed_products_used(const tdm_model *m, size_t replica, size_t layer,
                                                 tdm_mixed_products *out);

/* The device memory, in bytes, that local replica `replica`'s training buffers hold
 * now: the layers' activations and their gradients, im2col matrices, normalisation
 * statistics, the loss's and mixed precision's halves. They grow to the largest batch
 * share the replica has trained on; 0 before its first step. The variables and the
 * optimizer's slots are not counted. TDM_ERR_INVALID_ARGUMENT for a replica out of
 * range. */
TDM_API tdm_status tdm_model_scratch_bytes(const tdm_model *m, size_t replica, size_t *out);

/* Whether a global batch of global_batch examples can train: each local replica's
 * training buffers for its share (the layers' activations and their gradients, the
 * targets and losses; at least, since a layer's own scratch comes on top) against
 * its device's single allocation and its memory free beside what is already there
 * (the parameters, and the gradients and slots once a train op holds them), before
 * any step makes them. TDM_ERR_OUT_OF_MEMORY naming the layer, the bytes and the
 * device where they do not fit; TDM_ERR_INVALID_ARGUMENT for a batch of 0. */
TDM_API tdm_status tdm_model_check_batch(const tdm_model *m, size_t global_batch);

/* The loss the model trains with, which says what its outputs mean. */
TDM_API tdm_loss_kind tdm_model_loss_kind(const tdm_model *m);
/* TDM_LOSS_HUBER's delta: the model's (a loaded model's, its file's), 1 by default. */
TDM_API float tdm_model_huber_delta(const tdm_model *m);

/* A tdm_loss_fn (user: the model): the replica's forward pass, its share of the loss
 * (the model's reduction) and the gradients of the model's variables, which must
 * be args->vars in tdm_model_variable order. Dropout masks depend on the seed, the
 * global step and each example's index in the global batch, not on the replica
 * count. */
TDM_API tdm_status tdm_model_loss(const tdm_loss_args *args, void *model);

/* Evaluation over every example of ds, in its batches (an unbatched dataset goes one
 * example at a time), on the strategy's first device with the first copies of the
 * variables, no dropout: the mean per-example loss, and the metrics that fit the
 * task. Cross-replica or default mode. */
typedef struct tdm_evaluation {
    double loss;
    double accuracy; /* classes: the fraction of examples whose highest output is their
                        label (categorical: their target's highest); a sequence's labels:
                        of the unmasked positions whose highest channel is theirs;
                        sigmoid outputs: of outputs on their target's side of 1/2
                        (Keras' binary accuracy); 0 for a regression */
    size_t examples;
    double mae, rmse; /* float targets of a regression (mean squared or absolute error,
                         Huber): over every output; 0 otherwise */
    double r2;        /* its coefficient of determination, 1 - residual / total sum of
                         squares, each output's then their mean (scikit-learn's
                         r2_score); 0 otherwise */
} tdm_evaluation;
TDM_API tdm_status tdm_model_evaluate(tdm_model *m, const tdm_dataset *ds, tdm_evaluation *out);

/* ---- training and evaluating under different strategies ---------------------------
 * TensorFlow's DistributeConfig: one strategy trains, another evaluates (training
 * mirrored over every GPU or worker, evaluation on one device, say). */
typedef struct tdm_distribute_config {
    size_t size;                    /* sizeof(tdm_distribute_config) */
    tdm_strategy *train_distribute; /* the model's strategy; NULL: the model's */
    tdm_strategy *eval_distribute;  /* NULL: evaluation runs under the model's strategy */
} tdm_distribute_config;

#define TDM_DISTRIBUTE_CONFIG_INIT                                                                 \
    {                                                                                              \
        .size = sizeof(tdm_distribute_config)                                                      \
    }

typedef struct tdm_evaluator tdm_evaluator;

/* An evaluator of m under config's eval strategy: the model's architecture created
 * again there (cross-replica or default mode), whose weights are refreshed from m by
 * every tdm_evaluator_run, so each evaluation sees the weights training has reached.
 * Without an eval strategy (or with m's own) it evaluates m itself. m must outlive
 * it. */
TDM_API tdm_status tdm_evaluator_create(tdm_model *m, const tdm_distribute_config *config,
                                        tdm_evaluator **out);
/* tdm_model_evaluate of the eval strategy's model, after the refresh. */
TDM_API tdm_status tdm_evaluator_run(tdm_evaluator *e, const tdm_dataset *ds, tdm_evaluation *out);
/* The model evaluated: the copy on the eval strategy, or m. */
TDM_API tdm_model *tdm_evaluator_model(const tdm_evaluator *e);
TDM_API void tdm_evaluator_destroy(tdm_evaluator *e); /* NULL-safe */

/* ---- using a trained model ------------------------------------------------------
 * A model learns from features as training saw them: usually standardised with the
 * training split's statistics (tdm_dataset_feature_stats, tdm_dataset_standardize).
 * To predict from features as the data has them, give the model the same statistics:
 * tdm_model_predict then standardises its input first, and a saved model keeps them.
 * Training and tdm_model_evaluate never apply them: their datasets carry their own
 * maps. */

/* Sets x -> (x - mean) / std per feature (a feature whose std is 0 is only centred),
 * exactly as tdm_dataset_standardize computes it; mean and std (input_count each,
 * finite, std >= 0) are copied. Both NULL removes it. */
TDM_API tdm_status tdm_model_set_standardization(tdm_model *m, const float *mean, const float *std);
/* Those statistics, input_count each, into mean and std: to evaluate data as the
 * file has it (tdm_dataset_standardize, then tdm_model_evaluate). TDM_ERR_NOT_FOUND
 * when the model has none. */
TDM_API tdm_status tdm_model_get_standardization(const tdm_model *m, float *mean, float *std);

/* Names of the model's classes, which its file keeps and `tandem predict` prints:
 * none (NULL, 0) or one per output, each non-empty, shorter than
 * TDM_CLASS_NAME_MAX bytes, without commas or control characters. Copied. */
#define TDM_CLASS_NAME_MAX 256
TDM_API tdm_status tdm_model_set_class_names(tdm_model *m, const char *const *names, size_t count);

/* Class i's name, or NULL where the model has none; the model's string, valid until
 * the names are set again or the model is destroyed. */
TDM_API const char *tdm_model_class_name(const tdm_model *m, size_t i);

/* The model's outputs for `rows` examples: features row-major [rows, input_count]
 * (standardised first if the model has a standardisation), outputs [rows,
 * output_count]: logits for softmax cross-entropy (the highest is the predicted
 * class), the regression outputs for squared error. Runs in batches of up to 512 rows
 * on the strategy's first device with the first copies of the variables (a mirrored
 * strategy keeps every copy identical), without dropout, so it works the same on any
 * strategy and gives the outputs tdm_model_evaluate scores. rows 0 does nothing. A
 * feature that is NaN or infinite is refused with TDM_ERR_NUMERIC naming it, as a
 * dataset refuses it for training. Cross-replica or default mode; not while a step
 * trains the model, nor beside another prediction or evaluation of the same model
 * (they share its buffers). */
TDM_API tdm_status tdm_model_predict(tdm_model *m, const float *features, size_t rows,
                                     float *outputs);

/* ---- generation ------------------------------------------------------------------
 * A language model over bytes (tandem train --text's) reads a context of byte ids
 * (input_count of them, as floats) and gives 256 logits for each of their positions
 * (output_count 256 x input_count), trained with the sparse cross-entropy. */

typedef struct tdm_generate_options {
    size_t size;        /* sizeof(tdm_generate_options): set by the INIT macro */
    double temperature; /* the logits are divided by it before the draw; 0: always the
                           likeliest byte; default 1 */
    size_t top_k;       /* draw among the top_k likeliest bytes (ties kept); 0 (default):
                           among all 256 */
    uint64_t seed;      /* the draws' generator (splitmix64), so a seed gives the same
                           bytes on every machine; default 1 */
    /* If set, called with each byte once drawn (to write it as it comes); non-zero
     * stops the generation, which returns TDM_ERR_CANCELLED. */
    int (*on_byte)(unsigned char byte, void *user);
    void *user;
} tdm_generate_options;

#define TDM_GENERATE_OPTIONS_INIT                                                                  \
    {                                                                                              \
        .size = sizeof(tdm_generate_options), .temperature = 1.0, .seed = 1                       \
    }

/* Continues prompt[0, prompt_size) with `tokens` bytes into out[0, tokens), one at a
 * time: the model reads the last input_count bytes of the text so far from position 0
 * (a shorter text padded after it with id 0, which a causal model's last position read
 * does not see), and the next byte is drawn from its logits at the last position read,
 * divided by the temperature and kept to the top_k likeliest, from their softmax (opts
 * NULL: the defaults). It predicts as tdm_model_predict does, on the strategy's first
 * device. A model that is no language model over bytes, an empty prompt or one longer
 * than the context, a temperature that is negative or not finite and a top_k over 256
 * are TDM_ERR_INVALID_ARGUMENT saying why. */
TDM_API tdm_status tdm_model_generate(tdm_model *m, const void *prompt, size_t prompt_size,
                                      size_t tokens, const tdm_generate_options *opts,
                                      unsigned char *out);

/* ---- model files ------------------------------------------------------------------
 * A model file holds the architecture (layers, activations, dropout rates, loss), the
 * weights and the input standardisation, with a format version. Its layout is
 * safetensors (8-byte little-endian header length, a JSON header, little-endian
 * float32 data), so other tools read the weights; docs/MODEL_FILES.md describes it.
 * Optimizer slots and the global step are not in it: checkpoints hold those. */

/* Writes the model to path: to a temporary file beside it, synced, then renamed over
 * it, so that a reader finds the old file or the new one. A file-system failure is
 * TDM_ERR_NOT_FOUND (TDM_ERR_OUT_OF_MEMORY for a full disk) naming the path. */
TDM_API tdm_status tdm_model_save(const tdm_model *m, const char *path);

/* Creates a model on strategy s from a file written by tdm_model_save (cross-replica
 * or default mode). A missing file is TDM_ERR_NOT_FOUND; a truncated or damaged file
 * (the data carries a CRC-32), a file that is not safetensors, or a safetensors file
 * that is no tandem model is TDM_ERR_CORRUPT_DATA saying which; a newer format
 * version is TDM_ERR_UNSUPPORTED. Nothing is created then. */
TDM_API tdm_status tdm_model_load(tdm_strategy *s, const char *path, tdm_model **out);

/* Writes the model's inference to path as an ONNX model (IR version 8, opset 17) that
 * computes what tdm_model_predict returns, for onnxruntime and other ONNX tools. Its
 * inputs are float32 [N, width], one per model input, named "input", "input1", ...
 * (an image input flat, in NHWC order, as the features are here); the model's
 * standardisation, if it has one, is their first nodes. Its output "output" is
 * tdm_model_predict's [N, outputs]; a cross-entropy model adds "probabilities": the
 * softmax over each position's channels (the whole output where it is flat), or the
 * sigmoid of each output. Each layer kind becomes ONNX's operators (docs/MODELS.md
 * lists them); dropout is left out, as in inference. The weights are the first
 * copies, float32 (those tdm_model_save writes). Written as tdm_model_save writes, a
 * temporary file renamed over path. A kind the export has no form for is
 * TDM_ERR_UNSUPPORTED naming the layer's index and kind; a file-system failure is
 * TDM_ERR_NOT_FOUND (TDM_ERR_OUT_OF_MEMORY for a full disk) naming the path.
 * Cross-replica or default mode; not while a step trains the model. */
TDM_API tdm_status tdm_model_export_onnx(const tdm_model *m, const char *path);

#ifdef __cplusplus
}
#endif

#endif
