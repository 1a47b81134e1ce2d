/* _tandem: cross-device operations on host arrays: all-reduce, all-gather,
 * reduce-scatter and broadcast. The package hands over flat arrays (their addresses and
 * element count); the shapes stay on the Python side, since these operations see
 * elements in order. In a multi-worker job every process calls each one with its own
 * replicas' arrays, and the replicas are the job's. */
#include "pytandem.h"

#include <stdlib.h>
#include <string.h>

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
    if (code != TDM_F32 && code != TDM_F16 && code != TDM_I32) {
        raise_invalid("only float32, float16 and int32 arrays cross devices");
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

/* A PER_REPLICA value of one tensor per local replica, each from its array. */
static tdm_status per_replica(tdm_strategy *s, tdm_dtype dtype, size_t count, void *const *in,
                              size_t n, tdm_value **out)
{
    tdm_tensor *parts[MAX_ARRAYS] = {NULL};
    tdm_status st = TDM_OK;
    for (size_t i = 0; i < n && st == TDM_OK; i++)
        st = tensor_from(tdm_strategy_device(s, i), dtype, count, in[i], &parts[i]);
    if (st == TDM_OK)
        st = tdm_value_create(TDM_VALUE_PER_REPLICA, parts, n, out);
    if (st != TDM_OK)
        for (size_t i = 0; i < n; i++)
            tdm_tensor_destroy(parts[i]);
    return st;
}

typedef struct collective {
    enum { ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER } kind;
    tdm_reduce_op op;
    tdm_dtype dtype;
    size_t count;     /* elements of each input */
    size_t out_count; /* elements of each output */
    void *const *in, *const *out;
    size_t n; /* local replicas */
} collective;

/* Each replica all-reduces its component of run's argument in place: the replica
 * collective spans every process of a job, where the cross-device reduce would not. */
static tdm_status reduce_in_place(tdm_replica_context *rc, void *user)
{
    const collective *c = user;
    return tdm_replica_all_reduce(rc, c->op, tdm_replica_arg(rc, 0));
}

/* The work of a collective without the GIL, in the strategy's scope. */
static tdm_status run_collective(tdm_strategy *s, const collective *c)
{
    tdm_value *value = NULL, *result = NULL;
    tdm_status st = per_replica(s, c->dtype, c->count, c->in, c->n, &value);
    if (st != TDM_OK)
        return st;
    st = tdm_strategy_scope_enter(s);
    if (st == TDM_OK) {
        if (c->kind == ALL_REDUCE)
            st = tdm_strategy_run(s, reduce_in_place, (void *)c, &value, 1, NULL);
        else if (c->kind == ALL_GATHER)
            st = tdm_strategy_all_gather(s, value, &result);
        else
            st = tdm_strategy_reduce_scatter(s, c->op, value, &result);
        tdm_status exit = tdm_strategy_scope_exit(s);
        st = st == TDM_OK ? exit : st;
    }
    if (c->kind == ALL_REDUCE) /* reduced in place */
        return read_each(st, value, c->out, c->n, c->out_count * tdm_dtype_size(c->dtype));
    tdm_value_destroy(value);
    return read_each(st, result, c->out, c->n, c->out_count * tdm_dtype_size(c->dtype));
}

/* collective(strategy, kind, op, dtype, count, out_count, inputs, outputs): kind 0-2
 * (all-reduce, all-gather, reduce-scatter), op 0-3 (sum, mean, max, min), dtype a
 * tdm_dtype value, count the elements of each input and out_count of each output
 * (the package computes it from the replica count); inputs and outputs hold one
 * address per local replica. */
PyObject *py_collective(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *inputs, *outputs;
    int kind, op, dtype_code;
    Py_ssize_t count, out_count;
    if (!PyArg_ParseTuple(args, "OiiinnOO", &handle, &kind, &op, &dtype_code, &count, &out_count,
                          &inputs, &outputs))
        return NULL;
    tdm_strategy *s = handle_get(handle, "strategy");
    collective c = {ALL_REDUCE, TDM_REDUCE_SUM, TDM_F32, 0, 0, NULL, NULL, 0};
    if (!s || parse_dtype(dtype_code, &c.dtype) < 0)
        return NULL;
    if (kind < ALL_REDUCE || kind > REDUCE_SCATTER || op < TDM_REDUCE_SUM || op > TDM_REDUCE_MIN ||
        count < 0 || out_count < 0)
        return raise_invalid("collective: no such operation");
    c.kind = kind;
    c.op = (tdm_reduce_op)op;
    c.count = (size_t)count;
    c.out_count = (size_t)out_count;
    c.n = tdm_strategy_num_local_replicas(s);
    void *in[MAX_ARRAYS], *out[MAX_ARRAYS];
    if (c.n > MAX_ARRAYS)
        return raise_invalid("collective: more than 64 replicas");
    if (addresses(inputs, c.n, in) < 0 || addresses(outputs, c.n, out) < 0)
        return NULL;
    c.in = in;
    c.out = out;
    tdm_status st;
    UNLOCKED(handle, st, run_collective(s, &c));
    return none_or_raise(st);
}

/* The array on replica 0's device (in a job, the chief's array in every process, through
 * a scratch copy), copied to every local replica's device and read back from each. */
static tdm_status broadcast(tdm_strategy *s, tdm_dtype dtype, size_t count, const void *in,
                            void *const *out, size_t n)
{
    size_t bytes = count * tdm_dtype_size(dtype);
    void *chief = NULL;
    tdm_status st = TDM_OK;
    if (tdm_strategy_num_workers(s) > 1) {
        chief = malloc(bytes + 1);
        if (!chief)
            return TDM_ERR_OUT_OF_MEMORY;
        memcpy(chief, in, bytes);
        st = tdm_strategy_broadcast_host(s, chief, bytes);
        in = chief;
    }
    tdm_tensor *source = NULL;
    tdm_value *copies = NULL;
    if (st == TDM_OK)
        st = tensor_from(tdm_strategy_device(s, 0), dtype, count, in, &source);
    if (st == TDM_OK)
        st = tdm_strategy_broadcast(s, source, NULL, 0, &copies);
    tdm_tensor_destroy(source);
    free(chief);
    return read_each(st, copies, out, n, bytes);
}

/* broadcast(strategy, dtype, count, input, outputs): every local replica's copy of
 * the input (of the chief's, in a job). */
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
