/* _tandem: a model's weights to and from numpy arrays (Keras' get_weights and
 * set_weights): every trainable variable in the model's order, then every moving
 * statistic. */
#include "pytandem.h"

/* Weight i: trainable variable i, else moving statistic i - variables; NULL past them. */
static tdm_variable *weight(const tdm_model *m, Py_ssize_t i)
{
    size_t vars = tdm_model_variable_count(m), states = tdm_model_state_count(m);
    if (i < 0 || (size_t)i >= vars + states)
        return NULL;
    return (size_t)i < vars ? tdm_model_variable(m, (size_t)i)
                            : tdm_model_state(m, (size_t)i - vars);
}

/* model_weights(model) -> [(name, shape)] of each weight, in get_weights' order. */
PyObject *py_model_weights(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    tdm_model *m = handle_arg(args, "model", &handle);
    if (!m)
        return NULL;
    PyObject *list = PyList_New(0);
    tdm_variable *var;
    for (Py_ssize_t i = 0; list && (var = weight(m, i)) != NULL; i++) {
        tdm_shape shape = tdm_variable_shape(var);
        PyObject *dims = PyTuple_New((Py_ssize_t)shape.rank);
        for (size_t k = 0; dims && k < shape.rank; k++)
            if (PyTuple_SetItem(dims, (Py_ssize_t)k, PyLong_FromSize_t(shape.dims[k])) < 0)
                Py_CLEAR(dims);
        PyObject *item = dims ? Py_BuildValue("(sN)", tdm_variable_name(var), dims) : NULL;
        if (!item || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* model_weight(model, index, address, write): weight index read into, or with write
 * assigned from (every copy of it), the float32 array at address, which the package
 * made of the weight's shape. */
PyObject *py_model_weight(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *address;
    Py_ssize_t index;
    int write;
    if (!PyArg_ParseTuple(args, "OnOp", &handle, &index, &address, &write))
        return NULL;
    tdm_model *m = handle_get(handle, "model");
    void *data;
    if (!m || parse_address(address, &data) < 0)
        return NULL;
    tdm_variable *var = weight(m, index);
    if (!var)
        return PyErr_Format(PyExc_IndexError, "model_weight: no weight %zd", index);
    tdm_shape shape = tdm_variable_shape(var);
    size_t bytes = tdm_shape_count(&shape) * sizeof(float);
    tdm_status st;
    UNLOCKED(handle, st,
             write ? tdm_variable_assign_host(var, TDM_ASSIGN, data, bytes)
                   : tdm_variable_read(var, data, bytes));
    return none_or_raise(st);
}
