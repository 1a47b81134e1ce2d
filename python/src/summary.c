/* TensorBoard event files (tandem/summary.h) for tandem.callbacks.TensorBoard: the
 * library's writer, so that fit's files are tandem train --tensorboard's. */
#include "pytandem.h"

static void destroy_writer(void *w)
{
    tdm_summary_close(w); /* a write's failure was raised when it happened */
}

/* summary_open(dir) -> a handle over a new event file in dir (made if missing). */
PyObject *py_summary_open(PyObject *self, PyObject *args)
{
    (void)self;
    const char *dir;
    if (!PyArg_ParseTuple(args, "s", &dir))
        return NULL;
    tdm_summary_writer *w = NULL;
    tdm_status st;
    Py_BEGIN_ALLOW_THREADS st = tdm_summary_open(dir, &w);
    Py_END_ALLOW_THREADS return st == TDM_OK ? handle_new(w, destroy_writer, NULL, "summary writer")
                                             : raise_status(st);
}

/* summary_scalar(writer, tag, step, value): one scalar appended. */
PyObject *py_summary_scalar(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    const char *tag;
    long long step;
    double value;
    if (!PyArg_ParseTuple(args, "OsLd", &handle, &tag, &step, &value))
        return NULL;
    tdm_summary_writer *w = handle_get(handle, "summary writer");
    return w ? none_or_raise(tdm_summary_scalar(w, tag, (int64_t)step, value)) : NULL;
}

/* summary_flush(writer): what was appended handed to the system. */
PyObject *py_summary_flush(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    tdm_summary_writer *w = handle_arg(args, "summary writer", &handle);
    return w ? none_or_raise(tdm_summary_flush(w)) : NULL;
}

/* summary_path(writer) -> the event file's path. */
PyObject *py_summary_path(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    tdm_summary_writer *w = handle_arg(args, "summary writer", &handle);
    return w ? PyUnicode_FromString(tdm_summary_path(w)) : NULL;
}
