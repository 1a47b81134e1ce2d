/* _tandem: sequential models of every layer kind tandem train's --layers takes: creating, loading,
 * saving, predicting, evaluating, generating text, and reading a CSV file or a text's windows
 * into arrays. Training is in fit.c. */
#include "pytandem.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LAYERS = 64, EVAL_BATCH = 512 };

static void destroy_model(void *m)
{
    tdm_model_destroy(m);
}

/* The linear output layer of `classes` units: dense, or per position a 1x1 convolution
 * (tandem train --text's conv256k1), which keeps the positions of the image it reads. */
static tdm_layer output_layer(size_t classes, int per_position)
{
    return per_position ? (tdm_layer)TDM_CONV2D(classes, 1, TDM_ACT_LINEAR)
                        : (tdm_layer)TDM_DENSE(classes, TDM_ACT_LINEAR, 0.0f);
}

/* Every hidden layer of `spec` (tandem train's --layers, tdm_layers_parse), with the
 * activation after each dense and conv2d layer and the dropout after each dense one, as
 * the CLI builds them, then the output layer. */
static int hidden_layers(const char *spec, tdm_activation activation, float dropout, size_t classes,
                         int per_position, tdm_layer *layers, size_t *count)
{
    if (tdm_layers_parse(spec, layers, MAX_LAYERS - 1, count) != TDM_OK) {
        PyErr_Format(PyExc_ValueError, "layers: %s", tdm_last_error());
        return -1;
    }
    for (size_t l = 0; l < *count; l++) {
        if (layers[l].kind == TDM_LAYER_DENSE || layers[l].kind == TDM_LAYER_CONV2D)
            layers[l].activation = activation;
        if (layers[l].kind == TDM_LAYER_DENSE)
            layers[l].dropout = dropout;
    }
    layers[(*count)++] = output_layer(classes, per_position);
    return 0;
}

/* parse_layers(spec) -> [(kind, text)]: each hidden layer of spec (or each layer of a
 * graph text) as the library names its kind ("conv2d") and in the CLI's canonical form
 * ("conv32k3"); ValueError naming the forms for a spec the CLI would refuse. */
PyObject *py_parse_layers(PyObject *self, PyObject *args)
{
    (void)self;
    const char *spec;
    if (!PyArg_ParseTuple(args, "s", &spec))
        return NULL;
    tdm_layer layers[MAX_LAYERS];
    size_t count = 0;
    tdm_graph_inputs inputs;
    tdm_status st = !*spec                ? TDM_OK
                    : strchr(spec, '=') ? tdm_graph_parse(spec, layers, MAX_LAYERS, &count, &inputs)
                                        : tdm_layers_parse(spec, layers, MAX_LAYERS - 1, &count);
    if (st != TDM_OK)
        return PyErr_Format(PyExc_ValueError, "layers: %s", tdm_last_error());
    PyObject *list = PyList_New(0);
    for (size_t l = 0; list && l < count; l++) {
        char text[64];
        tdm_layers_format(&layers[l], 1, text, sizeof text);
        PyObject *item = Py_BuildValue("(ss)", tdm_layer_kind_name(layers[l].kind), text);
        if (!item || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* model_create(strategy, spec, activation, dropout, features, image, classes, per_position,
 * seed, mixed_precision, f16_activations, conv, loss, huber_delta): the layers of spec
 * ("conv32k3,pool2,128"; "" for none) over inputs of `features` values, seen as image
 * (height, width, channels) where it is not None, then a linear output layer of
 * `classes` units (per_position: for each position of the image it reads; a graph text
 * holds its own), trained by `loss` (a name or Keras alias, tdm_loss_kind_parse; the
 * cross-entropies take the logits) with Huber's delta (0: 1); mixed precision computes
 * the matrix products with f16 operands, f16 activations keep the activations between
 * layers in f16; conv names the convolutions' algorithm (tdm_conv_algorithm_parse). */
PyObject *py_model_create(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *image;
    const char *spec, *activation_name;
    float dropout;
    Py_ssize_t features, classes, height = 0, width = 0, channels = 0;
    unsigned long long seed;
    int per_position, mixed, f16_activations;
    const char *conv, *loss_name;
    float huber_delta;
    if (!PyArg_ParseTuple(args, "OssfnOnpKppssf", &handle, &spec, &activation_name, &dropout,
                          &features, &image, &classes, &per_position, &seed, &mixed,
                          &f16_activations, &conv, &loss_name, &huber_delta))
        return NULL;
    tdm_strategy *s = handle_get(handle, "strategy");
    if (!s)
        return NULL;
    if (image != Py_None && !PyArg_ParseTuple(image, "nnn", &height, &width, &channels))
        return NULL;
    tdm_activation activation;
    tdm_conv_algorithm algorithm;
    tdm_loss_kind loss;
    tdm_status st = tdm_activation_parse(activation_name, &activation);
    if (st == TDM_OK)
        st = tdm_conv_algorithm_parse(conv, &algorithm);
    if (st == TDM_OK)
        st = tdm_loss_kind_parse(loss_name, &loss);
    if (st != TDM_OK)
        return raise_status(st);
    if (features < 1 || classes < 1)
        return raise_invalid("the input and the classes need at least one feature and class");
    tdm_layer layers[MAX_LAYERS];
    size_t count = 0;
    tdm_graph_inputs inputs = {0};
    int graph = strchr(spec, '=') != NULL; /* a graph text: the whole model, each layer's own */
    if (graph && tdm_graph_parse(spec, layers, MAX_LAYERS, &count, &inputs) != TDM_OK)
        return PyErr_Format(PyExc_ValueError, "layers: %s", tdm_last_error());
    if (!graph && *spec &&
        hidden_layers(spec, activation, dropout, (size_t)classes, per_position, layers, &count) < 0)
        return NULL;
    if (!*spec)
        layers[count++] = output_layer((size_t)classes, per_position);
    /* an embedding of a flat input makes a sequence, an image of one row */
    if (tdm_layers_need_image(layers, count) && image == Py_None &&
        layers[0].kind != TDM_LAYER_EMBEDDING)
        return PyErr_Format(PyExc_ValueError,
                            "input_shape: convolution and pooling take images: give "
                            "(height, width, channels)");
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = (size_t)features;
    mo.input_height = (size_t)height;
    mo.input_width = (size_t)width;
    mo.input_channels = (size_t)channels;
    mo.inputs = inputs.count;
    memcpy(mo.input_widths, inputs.widths, sizeof mo.input_widths);
    mo.layers = layers;
    mo.layer_count = count;
    mo.seed = seed;
    mo.compute_dtype = mixed || f16_activations ? TDM_F16 : TDM_F32;
    mo.activation_dtype = f16_activations ? TDM_F16 : TDM_F32;
    mo.conv_algorithm = algorithm;
    mo.loss = loss;
    mo.huber_delta = loss == TDM_LOSS_HUBER ? huber_delta : 0.0f;
    tdm_model *model = NULL;
    UNLOCKED(handle, st, tdm_model_create(s, &mo, &model));
    return st == TDM_OK ? handle_new(model, destroy_model, handle, "model") : raise_status(st);
}

/* The handle and path of args (a handle, then a str). */
static void *handle_path_args(PyObject *args, const char *what, PyObject **handle,
                              const char **path)
{
    return PyArg_ParseTuple(args, "Os", handle, path) ? handle_get(*handle, what) : NULL;
}

/* model_load(strategy, path) -> a model on the strategy, from a model file. */
PyObject *py_model_load(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    const char *path;
    tdm_strategy *s = handle_path_args(args, "strategy", &handle, &path);
    if (!s)
        return NULL;
    tdm_model *model = NULL;
    tdm_status st;
    UNLOCKED(handle, st, tdm_model_load(s, path, &model));
    return st == TDM_OK ? handle_new(model, destroy_model, handle, "model") : raise_status(st);
}

/* A model written to the path of args (model, path) by write. */
static PyObject *model_to_path(PyObject *args, tdm_status (*write)(const tdm_model *, const char *))
{
    PyObject *handle;
    const char *path;
    tdm_model *m = handle_path_args(args, "model", &handle, &path);
    if (!m)
        return NULL;
    tdm_status st;
    UNLOCKED(handle, st, write(m, path));
    return none_or_raise(st);
}

PyObject *py_model_save(PyObject *self, PyObject *args)
{
    (void)self;
    return model_to_path(args, tdm_model_save);
}

PyObject *py_model_export_onnx(PyObject *self, PyObject *args)
{
    (void)self;
    return model_to_path(args, tdm_model_export_onnx);
}

/* model_info(model) -> (features, outputs, loss, parameters, Huber's delta, each input's
 * width, the output's positions), loss the name model files record (tdm_loss_kind_name:
 * "softmax_cross_entropy", ...). */
PyObject *py_model_info(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    tdm_model *m = handle_arg(args, "model", &handle);
    if (!m)
        return NULL;
    size_t widths[TDM_MODEL_MAX_INPUTS];
    size_t inputs = tdm_model_input_widths(m, widths, TDM_MODEL_MAX_INPUTS);
    PyObject *split = PyTuple_New((Py_ssize_t)inputs);
    for (size_t k = 0; split && k < inputs; k++)
        if (PyTuple_SetItem(split, (Py_ssize_t)k, PyLong_FromSize_t(widths[k])) < 0)
            Py_CLEAR(split);
    if (!split)
        return NULL;
    return Py_BuildValue(
        "nnsndNn", (Py_ssize_t)tdm_model_input_count(m), (Py_ssize_t)tdm_model_output_count(m),
        tdm_loss_kind_name(tdm_model_loss_kind(m)), (Py_ssize_t)tdm_model_parameter_count(m),
        (double)tdm_model_huber_delta(m), split, (Py_ssize_t)tdm_model_output_positions(m));
}

/* loss_kinds() -> [(name, alias, takes classes, takes float targets)]: every loss the
 * loaded library trains with, in tdm_loss_kind's order (tandem/loss_kinds.def), so the
 * package names no loss of its own. */
PyObject *py_loss_kinds(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    PyObject *list = PyList_New(0);
    const char *const *aliases = tdm_loss_kind_aliases();
    for (int k = 0; list && aliases[k]; k++) {
        unsigned labels = tdm_loss_kind_labels((tdm_loss_kind)k);
        PyObject *item = Py_BuildValue("(ssOO)", tdm_loss_kind_name((tdm_loss_kind)k), aliases[k],
                                       labels & TDM_LOSS_TAKES_CLASSES ? Py_True : Py_False,
                                       labels & TDM_LOSS_TAKES_TARGETS ? Py_True : Py_False);
        if (!item || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* model_conv(model, layer) -> the name of the algorithm convolution layer `layer`
 * computes with on replica 0 ("direct", "lowered", "implicit"; "measured" until its
 * first step decides). */
PyObject *py_model_conv(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    Py_ssize_t layer;
    if (!PyArg_ParseTuple(args, "On", &handle, &layer))
        return NULL;
    tdm_model *m = handle_get(handle, "model");
    if (!m)
        return NULL;
    tdm_conv_algorithm a;
    tdm_status st = tdm_model_conv_algorithm_used(m, 0, (size_t)layer, &a);
    return st == TDM_OK ? PyUnicode_FromString(tdm_conv_algorithm_name(a)) : raise_status(st);
}

/* predict(model, features address, rows, outputs address): the package made the
 * outputs [rows, output_count] float32 and checked the features' shape. */
PyObject *py_predict(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *in_obj, *out_obj;
    Py_ssize_t rows;
    if (!PyArg_ParseTuple(args, "OOnO", &handle, &in_obj, &rows, &out_obj))
        return NULL;
    tdm_model *m = handle_get(handle, "model");
    void *in, *out;
    if (!m || parse_address(in_obj, &in) < 0 || parse_address(out_obj, &out) < 0)
        return NULL;
    if (rows < 0)
        return raise_invalid("predict: a negative row count");
    tdm_status st;
    UNLOCKED(handle, st, tdm_model_predict(m, in, (size_t)rows, out));
    return none_or_raise(st);
}

tdm_status dataset_from(const void *x, const void *y, size_t rows, size_t features,
                        const labels_shape *l, tdm_dataset **out)
{
    if (l->targets)
        return tdm_dataset_from_targets(x, y, rows, features, l->targets, out);
    return l->width > 1
               ? tdm_dataset_from_sequences(x, y, rows, features, l->width, l->classes, out)
               : tdm_dataset_from_arrays(x, y, rows, features, l->classes, out);
}

tdm_status dataset_of(const void *x, const void *y, size_t rows, size_t features,
                      const labels_shape *l, size_t batch, tdm_dataset **out)
{
    tdm_status st = dataset_from(x, y, rows, features, l, out);
    if (st == TDM_OK && (st = tdm_dataset_batch(*out, batch, 0)) != TDM_OK) {
        tdm_dataset_destroy(*out);
        *out = NULL;
    }
    return st;
}

static tdm_status evaluate(tdm_model *m, const void *x, const void *y, size_t rows,
                           const labels_shape *l, tdm_evaluation *ev)
{
    tdm_dataset *ds = NULL;
    tdm_status st = dataset_of(x, y, rows, tdm_model_input_count(m), l, EVAL_BATCH, &ds);
    if (st == TDM_OK)
        st = tdm_model_evaluate(m, ds, ev);
    tdm_dataset_destroy(ds);
    return st;
}

PyObject *evaluation_tuple(const tdm_evaluation *ev)
{
    return Py_BuildValue("ddddd", ev->loss, ev->accuracy, ev->mae, ev->rmse, ev->r2);
}

/* evaluate(model, features address, labels address, rows, targets, width) -> (loss,
 * accuracy, mae, rmse, r2) (tdm_evaluation): labels int32 class indices [rows, width]
 * (width 1: one per example; more: one per position of the output) where targets is 0,
 * else float32 targets [rows, targets]. */
PyObject *py_evaluate(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *x_obj, *y_obj;
    Py_ssize_t rows, targets, width;
    if (!PyArg_ParseTuple(args, "OOOnnn", &handle, &x_obj, &y_obj, &rows, &targets, &width))
        return NULL;
    tdm_model *m = handle_get(handle, "model");
    void *x, *y;
    if (!m || parse_address(x_obj, &x) < 0 || parse_address(y_obj, &y) < 0)
        return NULL;
    if (rows < 1)
        return raise_invalid("evaluate: no examples");
    if (targets < 0 || width < 1)
        return raise_invalid("evaluate: a negative target width, or no label width");
    /* a label per position is a class of the position's outputs */
    size_t outputs = tdm_model_output_count(m);
    labels_shape l = {width > 1 ? outputs / (size_t)width : outputs, (size_t)targets,
                      (size_t)width};
    tdm_evaluation ev = {0};
    tdm_status st;
    UNLOCKED(handle, st, evaluate(m, x, y, (size_t)rows, &l, &ev));
    if (st != TDM_OK)
        return raise_status(st);
    return evaluation_tuple(&ev);
}

/* generate's progress callback: after each byte it takes the GIL back to run Python's
 * signal handlers, so that Ctrl-C stops the generation (the exception kept for generate
 * to raise), as it stops fit after a step. */
static int check_signals(unsigned char byte, void *user)
{
    (void)byte;
    int *raised = user;
    PyGILState_STATE gil = PyGILState_Ensure();
    *raised = PyErr_CheckSignals() < 0;
    PyGILState_Release(gil);
    return *raised;
}

/* generate(model, prompt bytes, tokens, temperature, top_k, seed) -> the bytes the
 * model continues the prompt with (tdm_model_generate, whose refusals it raises). */
PyObject *py_generate(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    const char *prompt;
    Py_ssize_t size, tokens, top_k;
    double temperature;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "Oy#ndnK", &handle, &prompt, &size, &tokens, &temperature, &top_k,
                          &seed))
        return NULL;
    tdm_model *m = handle_get(handle, "model");
    if (!m)
        return NULL;
    if (tokens < 0 || top_k < 0)
        return raise_invalid("generate: tokens and top_k are counts, not negative");
    unsigned char *out = malloc((size_t)tokens + 1);
    if (!out)
        return PyErr_NoMemory();
    int raised = 0;
    tdm_generate_options o = TDM_GENERATE_OPTIONS_INIT;
    o.temperature = temperature;
    o.top_k = (size_t)top_k;
    o.seed = seed;
    o.on_byte = check_signals;
    o.user = &raised;
    tdm_status st;
    UNLOCKED(handle, st, tdm_model_generate(m, prompt, (size_t)size, (size_t)tokens, &o, out));
    PyObject *result = raised         ? NULL
                       : st != TDM_OK ? raise_status(st)
                                      : PyBytes_FromStringAndSize((const char *)out, tokens);
    free(out);
    return result;
}

/* A dataset's examples copied out whole: features [rows, cols], int32 labels [rows,
 * width]. */
typedef struct host_arrays {
    float *x;
    int32_t *y;
    size_t rows, cols, width;
} host_arrays;

/* The whole dataset as one batch, copied into *a (zeroed first; free with free_arrays). */
static tdm_status read_all(tdm_dataset *ds, host_arrays *a)
{
    tdm_dataset_iterator *it = NULL;
    const tdm_batch *b = NULL;
    a->rows = tdm_dataset_example_count(ds);
    a->cols = tdm_dataset_feature_count(ds);
    a->width = tdm_dataset_label_width(ds);
    tdm_status st = tdm_dataset_batch(ds, a->rows, 0);
    if (st == TDM_OK)
        st = tdm_dataset_iterator_create(ds, &it);
    if (st == TDM_OK)
        st = tdm_dataset_iterator_next(it, &b);
    if (st == TDM_OK) {
        a->x = malloc(a->rows * a->cols * sizeof *a->x + 1);
        a->y = malloc(a->rows * a->width * sizeof *a->y + 1);
        if (a->x && a->y) {
            memcpy(a->x, b->features, a->rows * a->cols * sizeof *a->x);
            memcpy(a->y, b->labels, a->rows * a->width * sizeof *a->y);
        } else {
            st = TDM_ERR_OUT_OF_MEMORY;
        }
    }
    tdm_dataset_iterator_destroy(it);
    return st;
}

static void free_arrays(host_arrays *a)
{
    free(a->x);
    free(a->y);
}

/* (features bytes, labels bytes, rows, features per row, labels per row). */
static PyObject *arrays_tuple(const host_arrays *a)
{
    return Py_BuildValue("y#y#nnn", (const char *)a->x,
                         (Py_ssize_t)(a->rows * a->cols * sizeof *a->x), (const char *)a->y,
                         (Py_ssize_t)(a->rows * a->width * sizeof *a->y), (Py_ssize_t)a->rows,
                         (Py_ssize_t)a->cols, (Py_ssize_t)a->width);
}

/* load_csv(path) -> arrays_tuple's of the file: the label in the last column, as
 * `tandem train --data` reads by default; gzip is read too. */
PyObject *py_load_csv(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path))
        return NULL;
    tdm_dataset *ds = NULL;
    host_arrays a = {0};
    tdm_status st;
    Py_BEGIN_ALLOW_THREADS st = tdm_dataset_from_csv(path, NULL, &ds);
    if (st == TDM_OK)
        st = read_all(ds, &a);
    tdm_dataset_destroy(ds);
    Py_END_ALLOW_THREADS PyObject *result = st == TDM_OK ? arrays_tuple(&a) : raise_status(st);
    free_arrays(&a);
    return result;
}

/* text_windows(path or None, text bytes or None, context, stride, validation_fraction) ->
 * (arrays_tuple's of the training windows, of the held-out ones), as
 * tdm_dataset_from_text cuts the file at path (gzip read as its contents) or
 * tdm_dataset_from_text_bytes the bytes. */
PyObject *py_text_windows(PyObject *self, PyObject *args)
{
    (void)self;
    const char *path, *text;
    Py_ssize_t size, context, stride;
    double fraction;
    if (!PyArg_ParseTuple(args, "zz#nnd", &path, &text, &size, &context, &stride, &fraction))
        return NULL;
    if (context < 0 || stride < 0)
        return raise_invalid("text_windows: a negative context or stride");
    tdm_dataset *train = NULL, *held = NULL;
    host_arrays a[2] = {{0}, {0}};
    tdm_status st;
    Py_BEGIN_ALLOW_THREADS st =
        path ? tdm_dataset_from_text(path, (size_t)context, (size_t)stride, fraction, &train, &held,
                                     NULL)
             : tdm_dataset_from_text_bytes(text, (size_t)size, "the bytes given", (size_t)context,
                                           (size_t)stride, fraction, &train, &held, NULL);
    if (st == TDM_OK)
        st = read_all(train, &a[0]);
    if (st == TDM_OK)
        st = read_all(held, &a[1]);
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(held);
    Py_END_ALLOW_THREADS PyObject *result = NULL;
    if (st != TDM_OK) {
        raise_status(st);
    } else {
        PyObject *first = arrays_tuple(&a[0]), *second = first ? arrays_tuple(&a[1]) : NULL;
        result = second ? PyTuple_Pack(2, first, second) : NULL;
        Py_XDECREF(first);
        Py_XDECREF(second);
    }
    free_arrays(&a[0]);
    free_arrays(&a[1]);
    return result;
}
