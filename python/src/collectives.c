/* _tandem: cross-device operations on host arrays: all-reduce and broadcast. The
 * package hands over flat arrays (their addresses and element count); the shapes stay
 * on the Python side, since element-wise operations do not need them. */
#include "pytandem.h"

enum { MAX_ARRAYS = 64 };

/* Addresses of a list of arrays, which must hold `want` of them. */
static int addresses(PyObject *list, size_t want, void **out)
{
    if (!PyList_Check(list) || (size_t)PyList_Size(list) != want) {
        PyErr_Format(PyExc_ValueError, "expected one array per replica (%zu)", want);
        return -1;
    }
    for (size_t i = 0; i < want; i++)
        if (parse_address(PyList_GetItem(list, (Py_ssize_t)i), &out[i]) < 0)
            return -1;
    return 0;
}

static int parse_dtype(int code, tdm_dtype *out)
{
    if (code != TDM_F32 && code != TDM_I32) {
        raise_invalid("only float32 and int32 arrays cross devices");
        return -1;
    }
    *out = (tdm_dtype)code;
    return 0;
}

/* A tensor of `count` elements on dev holding src's. */
static tdm_status tensor_from(tdm_device *dev, tdm_dtype dtype, size_t count, const void *src,
                              tdm_tensor **out)
{
    tdm_shape shape = TDM_SHAPE(count);
    tdm_status st = tdm_tensor_create(dev, dtype, &shape, out);
    if (st == TDM_OK)
        st = tdm_tensor_write(*out, src, count * tdm_dtype_size(dtype));
    return st;
}

/* Where st is TDM_OK, reads value's n components (`bytes` each) into out; destroys
 * the value either way. */
static tdm_status read_each(tdm_status st, tdm_value *value, void *const *out, size_t n,
                            size_t bytes)
{
    for (size_t i = 0; i < n && st == TDM_OK; i++)
        st = tdm_tensor_read(tdm_value_component(value, i), out[i], bytes);
    tdm_value_destroy(value);
    return st;
}

/* The work of all_reduce without the GIL: a tensor per replica from its array, the
 * reduction onto every replica's device, each result read back into its output. */
static tdm_status all_reduce(tdm_strategy *s, tdm_reduce_op op, tdm_dtype dtype, size_t count,
                             void *const *in, void *const *out, size_t n)
{
    tdm_tensor *parts[MAX_ARRAYS] = {NULL};
    tdm_value *value = NULL, *reduced = NULL;
    tdm_status st = TDM_OK;
    for (size_t i = 0; i < n && st == TDM_OK; i++)
        st = tensor_from(tdm_strategy_device(s, i), dtype, count, in[i], &parts[i]);
    if (st == TDM_OK)
        st = tdm_value_create(TDM_VALUE_PER_REPLICA, parts, n, &value);
    if (st != TDM_OK) {
        for (size_t i = 0; i < n; i++)
            tdm_tensor_destroy(parts[i]);
        return st;
    }
    st = tdm_strategy_scope_enter(s);
    if (st == TDM_OK) {
        st = tdm_strategy_reduce_to(s, op, value, NULL, 0, &reduced);
        tdm_status exit = tdm_strategy_scope_exit(s);
        st = st == TDM_OK ? exit : st;
    }
    tdm_value_destroy(value);
    return read_each(st, reduced, out, n, count * tdm_dtype_size(dtype));
}

/* all_reduce(strategy, op, dtype, count, inputs, outputs): op 0-3 (sum, mean, max, min),
 * dtype a tdm_dtype value, count the elements of each array; inputs and outputs hold
 * one address per replica. */
PyObject *py_all_reduce(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *inputs, *outputs;
    int op, dtype_code;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "OiinOO", &handle, &op, &dtype_code, &count, &inputs, &outputs))
        return NULL;
    tdm_strategy *s = handle_get(handle, "strategy");
    tdm_dtype dtype;
    if (!s || parse_dtype(dtype_code, &dtype) < 0)
        return NULL;
    if (op < TDM_REDUCE_SUM || op > TDM_REDUCE_MIN || count < 0)
        return raise_invalid("all_reduce: no such reduction");
    size_t n = tdm_strategy_num_local_replicas(s);
    void *in[MAX_ARRAYS], *out[MAX_ARRAYS];
    if (n > MAX_ARRAYS)
        return raise_invalid("all_reduce: more than 64 replicas");
    if (addresses(inputs, n, in) < 0 || addresses(outputs, n, out) < 0)
        return NULL;
    tdm_status st;
    UNLOCKED(handle, st, all_reduce(s, (tdm_reduce_op)op, dtype, (size_t)count, in, out, n));
    return none_or_raise(st);
}

static tdm_status broadcast(tdm_strategy *s, tdm_dtype dtype, size_t count, const void *in,
                            void *const *out, size_t n)
{
    tdm_tensor *source = NULL;
    tdm_value *copies = NULL;
    tdm_status st = tensor_from(tdm_strategy_device(s, 0), dtype, count, in, &source);
    if (st == TDM_OK)
        st = tdm_strategy_broadcast(s, source, NULL, 0, &copies);
    tdm_tensor_destroy(source);
    return read_each(st, copies, out, n, count * tdm_dtype_size(dtype));
}

/* broadcast(strategy, dtype, count, input, outputs): the array on replica 0's device,
 * copied to every replica's device and read back from each. */
PyObject *py_broadcast(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *input, *outputs;
    int dtype_code;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "OinOO", &handle, &dtype_code, &count, &input, &outputs))
        return NULL;
    tdm_strategy *s = handle_get(handle, "strategy");
    tdm_dtype dtype;
    void *in, *out[MAX_ARRAYS];
    if (!s || parse_dtype(dtype_code, &dtype) < 0 || parse_address(input, &in) < 0)
        return NULL;
    size_t n = tdm_strategy_num_local_replicas(s);
    if (n > MAX_ARRAYS)
        return raise_invalid("broadcast: more than 64 replicas");
    if (count < 0 || addresses(outputs, n, out) < 0)
        return NULL;
    tdm_status st;
    UNLOCKED(handle, st, broadcast(s, dtype, (size_t)count, in, out, n));
    return none_or_raise(st);
}
