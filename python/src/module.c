/* _tandem: the module, its error classes, the Handle type and the shared context. */
#include "pytandem.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- errors ---------------------------------------------------------------------- */

enum { STATUS_SLOTS = 64 };
static PyObject *tandem_error;                /* tandem.TandemError */
static PyObject *status_errors[STATUS_SLOTS]; /* a subclass per status value */

/* "TDM_ERR_INVALID_ARGUMENT" -> "InvalidArgumentError". */
static void class_name(const char *status, char *out, size_t size)
{
    const char *p = strncmp(status, "TDM_ERR_", 8) == 0 ? status + 8 : status;
    size_t n = 0;
    int upper = 1;
    for (; *p && n + 6 < size; p++) {
        if (*p == '_') {
            upper = 1;
            continue;
        }
        out[n++] = (char)(upper ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
        upper = 0;
    }
    snprintf(out + n, size - n, "Error");
}

static int add_errors(PyObject *module)
{
    tandem_error = PyErr_NewExceptionWithDoc(
        "tandem.TandemError",
        "A call into tandem failed: `status` is the status name (\"TDM_ERR_...\"), "
        "`code` its value, and str() tandem's message.",
        PyExc_RuntimeError, NULL);
    if (!tandem_error || PyModule_AddObject(module, "TandemError", tandem_error) < 0)
        return -1;
    Py_INCREF(tandem_error);
    /* an invalid argument is Python's ValueError too, as the package's own checks raise */
    PyObject *invalid_bases = PyTuple_Pack(2, tandem_error, PyExc_ValueError);
    if (!invalid_bases)
        return -1;
#define TDM_STATUS(name, value, description)                                                       \
    if ((value) > 0 && (value) < STATUS_SLOTS) {                                                   \
        char short_name[64], full[96];                                                             \
        class_name(#name, short_name, sizeof short_name);                                          \
        snprintf(full, sizeof full, "tandem.%s", short_name);                                      \
        PyObject *cls = PyErr_NewExceptionWithDoc(                                                 \
            full, description, (value) == TDM_ERR_INVALID_ARGUMENT ? invalid_bases : tandem_error, \
            NULL);                                                                                 \
        if (!cls || PyModule_AddObject(module, short_name, cls) < 0) {                             \
            Py_DECREF(invalid_bases);                                                              \
            return -1;                                                                             \
        }                                                                                          \
        Py_INCREF(cls);                                                                            \
        status_errors[value] = cls;                                                                \
    }
#include <tandem/status.def>
#undef TDM_STATUS
    Py_DECREF(invalid_bases);
    return 0;
}

static PyObject *raise_message(tdm_status status, const char *message)
{
    PyObject *cls = (int)status > 0 && (int)status < STATUS_SLOTS && status_errors[status]
                        ? status_errors[status]
                        : tandem_error;
    PyObject *error = PyObject_CallFunction(cls, "s", message);
    if (!error)
        return NULL;
    PyObject *name = PyUnicode_FromString(tdm_status_str(status));
    PyObject *code = PyLong_FromLong((long)status);
    if (name && code && PyObject_SetAttrString(error, "status", name) == 0 &&
        PyObject_SetAttrString(error, "code", code) == 0)
        PyErr_SetObject(cls, error);
    Py_XDECREF(name);
    Py_XDECREF(code);
    Py_DECREF(error);
    return NULL;
}

PyObject *raise_status(tdm_status status)
{
    const char *message = tdm_last_error();
    return raise_message(status, message && *message ? message : tdm_status_description(status));
}

PyObject *none_or_raise(tdm_status status)
{
    if (status != TDM_OK)
        return raise_status(status);
    Py_RETURN_NONE;
}

PyObject *raise_invalid(const char *message)
{
    return raise_message(TDM_ERR_INVALID_ARGUMENT, message);
}

/* ---- handles --------------------------------------------------------------------- */

static PyTypeObject *handle_type;

static void handle_release(Handle *h)
{
    if (h->ptr && h->destroy)
        h->destroy(h->ptr);
    h->ptr = NULL;
}

static void handle_dealloc(PyObject *self)
{
    Handle *h = (Handle *)self;
    PyTypeObject *type = Py_TYPE(self);
    handle_release(h);
    if (h->parent) {
        Handle *parent = (Handle *)h->parent;
        if (--parent->children == 0 && parent->closed)
            handle_release(parent);
    }
    Py_CLEAR(h->parent);
    freefunc release = (freefunc)PyType_GetSlot(type, Py_tp_free);
    release(self);
    Py_DECREF(type);
}

static PyType_Slot handle_slots[] = {
    {Py_tp_dealloc, (void *)handle_dealloc},
    {Py_tp_doc, (void *)"A tandem object (context, strategy, model...) owned by Python."},
    {0, NULL}};

static PyType_Spec handle_spec = {"tandem._tandem.Handle", sizeof(Handle), 0, Py_TPFLAGS_DEFAULT,
                                  handle_slots};

PyObject *handle_new(void *ptr, void (*destroy)(void *), PyObject *parent, const char *what)
{
    PyObject *alloc = NULL;
    allocfunc make = (allocfunc)PyType_GetSlot(handle_type, Py_tp_alloc);
    alloc = make ? make(handle_type, 0) : NULL;
    if (!alloc) {
        if (destroy)
            destroy(ptr);
        return NULL;
    }
    Handle *h = (Handle *)alloc;
    h->ptr = ptr;
    h->destroy = destroy;
    h->parent = parent;
    if (parent) {
        Py_INCREF(parent);
        ((Handle *)parent)->children++;
    }
    h->children = 0;
    h->what = what;
    h->closed = 0;
    h->busy = 0;
    return alloc;
}

void *handle_get(PyObject *obj, const char *what)
{
    if (!PyObject_TypeCheck(obj, handle_type) || strcmp(((Handle *)obj)->what, what) != 0) {
        char message[128];
        snprintf(message, sizeof message, "expected a tandem %s", what);
        raise_invalid(message);
        return NULL;
    }
    Handle *h = (Handle *)obj;
    if (h->closed || !h->ptr) {
        char message[128];
        snprintf(message, sizeof message, "the %s is closed", what);
        raise_message(TDM_ERR_INVALID_STATE, message);
        return NULL;
    }
    for (Handle *up = h; up; up = (Handle *)up->parent)
        if (up->busy) {
            char message[160];
            snprintf(message, sizeof message, "the %s%s%s is in use by another thread", what,
                     up == h ? "" : "'s ", up == h ? "" : up->what);
            raise_message(TDM_ERR_INVALID_STATE, message);
            return NULL;
        }
    return h->ptr;
}

void *handle_arg(PyObject *args, const char *what, PyObject **handle)
{
    return PyArg_ParseTuple(args, "O", handle) ? handle_get(*handle, what) : NULL;
}

/* A call that releases the GIL marks its handle and those it is built on (a model's
 * strategy), the context aside: handle_get refuses any of them meanwhile, so no other
 * thread reaches the objects the call uses. */
static void mark(PyObject *obj, int busy)
{
    for (Handle *h = (Handle *)obj; h && h->parent; h = (Handle *)h->parent)
        h->busy = busy;
}

void handle_enter(PyObject *obj)
{
    mark(obj, 1);
}

void handle_leave(PyObject *obj)
{
    mark(obj, 0);
}

/* close(handle): nothing works through it afterwards. The object itself goes now, or,
 * while others still depend on it (a model on a strategy), with the last of them. */
PyObject *py_close(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O", &obj))
        return NULL;
    if (!PyObject_TypeCheck(obj, handle_type))
        return raise_invalid("expected a tandem object");
    Handle *h = (Handle *)obj;
    if (h->busy)
        return raise_message(TDM_ERR_INVALID_STATE, "it is in use by another thread");
    h->closed = 1;
    if (h->children == 0)
        handle_release(h);
    Py_RETURN_NONE;
}

/* ---- the shared context ------------------------------------------------------------ */

static PyObject *context_handle;

static void destroy_context(void *ctx)
{
    tdm_context_destroy(ctx);
}

PyObject *shared_context(void)
{
    if (context_handle)
        return context_handle;
    tdm_context *ctx = NULL;
    tdm_status s;
    Py_BEGIN_ALLOW_THREADS s = tdm_context_create(NULL, &ctx);
    Py_END_ALLOW_THREADS if (s != TDM_OK) return raise_status(s);
    context_handle = handle_new(ctx, destroy_context, NULL, "context");
    return context_handle;
}

int parse_address(PyObject *obj, void **out)
{
    *out = PyLong_AsVoidPtr(obj);
    return *out || !PyErr_Occurred() ? 0 : -1;
}

/* ---- the module ------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"devices", py_devices, METH_NOARGS, "Every device of the context, as dicts."},
    {"library_path", py_library_path, METH_NOARGS, "The path of the libtandem loaded."},
    {"version", py_version, METH_NOARGS, "The loaded libtandem's version (tdm_version)."},
    {"strategy", py_strategy, METH_VARARGS,
     "A mirrored, multi-worker, one-device or parameter-server strategy over device ids."},
    {"strategy_info", py_strategy_info, METH_VARARGS, "A strategy's replicas and job."},
    {"strategy_devices", py_strategy_devices, METH_VARARGS, "The ids of a strategy's devices."},
    {"close", py_close, METH_VARARGS, "Closes a tandem object."},
    {"collective", py_collective, METH_VARARGS,
     "All-reduces, all-gathers or reduce-scatters per-replica arrays."},
    {"broadcast", py_broadcast, METH_VARARGS, "Copies one array to every replica's device."},
    {"parse_layers", py_parse_layers, METH_VARARGS, "The layers of a --layers spec."},
    {"model_create", py_model_create, METH_VARARGS, "A sequential model of tandem train's layers."},
    {"model_load", py_model_load, METH_VARARGS, "A model from a model file."},
    {"model_save", py_model_save, METH_VARARGS, "Writes a model file."},
    {"model_export_onnx", py_model_export_onnx, METH_VARARGS, "Writes the model as ONNX."},
    {"model_info", py_model_info, METH_VARARGS, "A model's inputs, outputs, loss, parameters."},
    {"loss_kinds", py_loss_kinds, METH_NOARGS, "Every loss: name, Keras alias, labels."},
    {"kind_names", py_kind_names, METH_VARARGS, "The strategies' or schedules' names."},
    {"model_conv", py_model_conv, METH_VARARGS, "The algorithm of each convolution layer."},
    {"model_weights", py_model_weights, METH_VARARGS, "A model's weights: names, shapes."},
    {"model_weight", py_model_weight, METH_VARARGS, "Reads or assigns one weight."},
    {"predict", py_predict, METH_VARARGS, "A model's outputs for rows of features."},
    {"generate", py_generate, METH_VARARGS, "Bytes a language model continues a prompt with."},
    {"evaluate", py_evaluate, METH_VARARGS, "A model's mean loss and metrics."},
    {"trainer_create", (PyCFunction)(void (*)(void))py_trainer_create, METH_VARARGS | METH_KEYWORDS,
     "An optimizer and train op."},
    {"serve", (PyCFunction)(void (*)(void))py_serve, METH_VARARGS | METH_KEYWORDS,
     "Serves a model's variables to a parameter-server job's workers."},
    {"trainer_state", py_trainer_state, METH_VARARGS, "Optimizer slot bytes, loss scale."},
    {"trainer_set_learning_rate", py_trainer_set_learning_rate, METH_VARARGS,
     "The constant rate of every later step."},
    {"fit_begin", py_fit_begin, METH_VARARGS, "The input and monitor of one fit."},
    {"fit_epoch", py_fit_epoch, METH_VARARGS, "Trains one epoch; its mean loss."},
    {"load_csv", py_load_csv, METH_VARARGS, "Features and labels of a CSV file."},
    {"text_windows", py_text_windows, METH_VARARGS, "A text's windows and next bytes."},
    {"summary_open", py_summary_open, METH_VARARGS, "A new TensorBoard event file in a folder."},
    {"summary_scalar", py_summary_scalar, METH_VARARGS, "Appends a scalar: tag, step, value."},
    {"summary_flush", py_summary_flush, METH_VARARGS, "Hands a writer's records to the system."},
    {"summary_path", py_summary_path, METH_VARARGS, "An event file's path."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "_tandem",
                                        "tandem's C library, for the tandem package.",
                                        -1,
                                        methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

PyMODINIT_FUNC PyInit__tandem(void); /* the one name the module exports */

PyMODINIT_FUNC PyInit__tandem(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (!module)
        return NULL;
    handle_type = (PyTypeObject *)PyType_FromSpec(&handle_spec);
    if (!handle_type || add_errors(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
