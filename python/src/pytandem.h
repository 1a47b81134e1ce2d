/* tandem's Python extension _tandem: what its source files share. Written against
 * CPython's stable ABI (Py_LIMITED_API 3.9), so one build serves every CPython from
 * 3.9 on. The Python package (python/tandem) checks arrays and passes their
 * addresses; this side calls the library with the GIL released and turns every
 * status other than TDM_OK into a tandem.TandemError subclass. */
#ifndef PYTANDEM_H
#define PYTANDEM_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <tandem/tandem.h>

/* A library object owned by Python: destroyed once, when closed with no object
 * depending on it, or else when the last reference goes. `parent` (a Handle or NULL)
 * is kept alive for as long as this one lives, so a model never outlives its
 * strategy nor a strategy its context. */
typedef struct Handle {
    PyObject_HEAD void *ptr;
    void (*destroy)(void *ptr);
    PyObject *parent;
    const char *what; /* "strategy", "model", ... for messages */
    size_t children;  /* live handles whose parent this is */
    int closed;
    int busy; /* a call on it, or on a handle built on it, runs without the GIL */
} Handle;

/* A new handle over ptr (taken over: destroyed with the handle, also on failure). */
PyObject *handle_new(void *ptr, void (*destroy)(void *), PyObject *parent, const char *what);
/* The live object behind obj, or NULL with an exception set: obj is no Handle of this
 * kind, it is closed, or another thread is using it. */
void *handle_get(PyObject *obj, const char *what);
/* handle_get of the one argument in args; *handle receives it. */
void *handle_arg(PyObject *args, const char *what, PyObject **handle);
/* Marks a handle, and those it is built on, used by a call that releases the GIL;
 * and unmarks them. */
void handle_enter(PyObject *obj);
void handle_leave(PyObject *obj);

/* Runs `call`, an expression of type tdm_status, into `st` without the GIL, with
 * `handle` and those it is built on marked in use. */
#define UNLOCKED(handle, st, call)                                                                 \
    do {                                                                                           \
        handle_enter(handle);                                                                      \
        Py_BEGIN_ALLOW_THREADS(st) = (call);                                                       \
        Py_END_ALLOW_THREADS handle_leave(handle);                                                 \
    } while (0)

/* None for TDM_OK, else raise_status(status). */
PyObject *none_or_raise(tdm_status status);

/* Raises the TandemError subclass of status with tdm_last_error()'s message (read on
 * the thread that made the failed call); returns NULL. */
PyObject *raise_status(tdm_status status);
/* Raises tandem.TandemError with status TDM_ERR_INVALID_ARGUMENT and this message. */
PyObject *raise_invalid(const char *message);

/* The process's context (every backend), created on first use; a borrowed Handle. */
PyObject *shared_context(void);

/* A Python integer holding an address and a byte count, as the package passes them. */
int parse_address(PyObject *obj, void **out);

/* What an example's labels are: `width` int32 class indices of `classes` classes where
 * `targets` is 0 (width 1: one per example; more: one per position of the model's
 * output, a negative one masking it), else `targets` float32 targets. */
typedef struct labels_shape {
    size_t classes, targets, width;
} labels_shape;

/* A dataset of `rows` examples copied from the arrays: y [rows, ...] as l says. */
tdm_status dataset_from(const void *x, const void *y, size_t rows, size_t features,
                        const labels_shape *l, tdm_dataset **out);
/* dataset_from's, in batches of `batch`. */
tdm_status dataset_of(const void *x, const void *y, size_t rows, size_t features,
                      const labels_shape *l, size_t batch, tdm_dataset **out);
/* (loss, accuracy, mae, rmse, r2) of an evaluation, as evaluate and fit_epoch give them. */
PyObject *evaluation_tuple(const tdm_evaluation *ev);

/* The functions of each source file, for the module's method table. */
PyObject *py_devices(PyObject *self, PyObject *args);
PyObject *py_library_path(PyObject *self, PyObject *args);
PyObject *py_version(PyObject *self, PyObject *args);
PyObject *py_kind_names(PyObject *self, PyObject *args);
PyObject *py_model_weights(PyObject *self, PyObject *args);
PyObject *py_model_weight(PyObject *self, PyObject *args);
PyObject *py_strategy(PyObject *self, PyObject *args);
PyObject *py_strategy_devices(PyObject *self, PyObject *args);
PyObject *py_close(PyObject *self, PyObject *args);
PyObject *py_strategy_info(PyObject *self, PyObject *args);
PyObject *py_collective(PyObject *self, PyObject *args);
PyObject *py_broadcast(PyObject *self, PyObject *args);
PyObject *py_parse_layers(PyObject *self, PyObject *args);
PyObject *py_model_create(PyObject *self, PyObject *args);
PyObject *py_model_load(PyObject *self, PyObject *args);
PyObject *py_model_save(PyObject *self, PyObject *args);
PyObject *py_model_export_onnx(PyObject *self, PyObject *args);
PyObject *py_model_info(PyObject *self, PyObject *args);
PyObject *py_loss_kinds(PyObject *self, PyObject *args);
PyObject *py_predict(PyObject *self, PyObject *args);
PyObject *py_generate(PyObject *self, PyObject *args);
PyObject *py_evaluate(PyObject *self, PyObject *args);
PyObject *py_trainer_create(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_serve(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *py_model_conv(PyObject *self, PyObject *args);
PyObject *py_trainer_state(PyObject *self, PyObject *args);
PyObject *py_trainer_set_learning_rate(PyObject *self, PyObject *args);
PyObject *py_fit_begin(PyObject *self, PyObject *args);
PyObject *py_fit_epoch(PyObject *self, PyObject *args);
PyObject *py_load_csv(PyObject *self, PyObject *args);
PyObject *py_text_windows(PyObject *self, PyObject *args);
PyObject *py_summary_open(PyObject *self, PyObject *args);
PyObject *py_summary_scalar(PyObject *self, PyObject *args);
PyObject *py_summary_flush(PyObject *self, PyObject *args);
PyObject *py_summary_path(PyObject *self, PyObject *args);

#endif
