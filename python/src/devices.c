/* _tandem: devices, the library's own path and version, and mirrored strategies. */
#define _GNU_SOURCE
#include "pytandem.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int set_item(PyObject *dict, const char *key, PyObject *value)
{
    if (!value)
        return -1;
    int rc = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return rc;
}

/* None where the driver does not say (0), as `tandem devices --json` gives null. */
static PyObject *compute_units(unsigned long count)
{
    if (count)
        return PyLong_FromUnsignedLong(count);
    Py_RETURN_NONE;
}

/* None for an empty text: a field the device does not have. */
static PyObject *text_or_none(const char *text)
{
    if (*text)
        return PyUnicode_FromString(text);
    Py_RETURN_NONE;
}

/* One device as a dict of its description and the default choice's verdict. */
static PyObject *describe(tdm_context *ctx, tdm_device *dev, size_t index)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    tdm_device_choice choice = TDM_CHOICE_USED;
    tdm_status s = tdm_device_describe(dev, &d);
    if (s == TDM_OK)
        s = tdm_context_default_choice(ctx, dev, &choice);
    if (s != TDM_OK)
        return raise_status(s);
    PyObject *dict = PyDict_New();
    if (!dict)
        return NULL;
    if (set_item(dict, "index", PyLong_FromSize_t(index)) < 0 ||
        set_item(dict, "id", PyUnicode_FromString(d.id)) < 0 ||
        set_item(dict, "name", PyUnicode_FromString(d.name)) < 0 ||
        set_item(dict, "vendor", PyUnicode_FromString(d.vendor)) < 0 ||
        set_item(dict, "driver", PyUnicode_FromString(d.driver)) < 0 ||
        set_item(dict, "type", PyUnicode_FromString(tdm_device_type_name(d.type))) < 0 ||
        set_item(dict, "backend", PyUnicode_FromString(tdm_backend_name(d.backend))) < 0 ||
        set_item(dict, "memory", PyLong_FromUnsignedLongLong(d.global_memory)) < 0 ||
        set_item(dict, "max_allocation", PyLong_FromUnsignedLongLong(d.max_allocation)) < 0 ||
        set_item(dict, "compute_units", compute_units(d.compute_units)) < 0 ||
        set_item(dict, "same_hardware_as", PyLong_FromLong(d.same_hardware_as)) < 0 ||
        set_item(dict, "simulator", PyBool_FromLong(d.simulator)) < 0 ||
        set_item(dict, "gemm", PyUnicode_FromString(d.gemm)) < 0 ||
        set_item(dict, "gemm_tuning", text_or_none(d.gemm_tuning)) < 0 ||
        set_item(dict, "default", PyBool_FromLong(choice == TDM_CHOICE_USED)) < 0 ||
        set_item(dict, "choice", PyUnicode_FromString(tdm_device_choice_description(choice))) < 0) {
        Py_DECREF(dict);
        return NULL;
    }
    return dict;
}

PyObject *py_devices(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    PyObject *context = shared_context();
    tdm_context *ctx = context ? handle_get(context, "context") : NULL;
    if (!ctx)
        return NULL;
    size_t count = tdm_context_device_count(ctx);
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < count; i++) {
        tdm_device *dev = NULL;
        tdm_status s = tdm_context_device(ctx, i, &dev);
        PyObject *item = s == TDM_OK ? describe(ctx, dev, i) : raise_status(s);
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(item);
    }
    return list;
}

/* The file libtandem was loaded from, so the package can find the CLI beside it. */
PyObject *py_version(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyUnicode_FromString(tdm_version());
}

/* kind_names(which) -> the names of tandem/<which>_kinds.def in its enum's order, for
 * which "strategy" or "lr" (the learning-rate schedules): the package spells no kind
 * of its own. */
PyObject *py_kind_names(PyObject *self, PyObject *args)
{
    (void)self;
    const char *which;
    if (!PyArg_ParseTuple(args, "s", &which))
        return NULL;
    const char *const *names = !strcmp(which, "strategy") ? tdm_strategy_kind_names()
                               : !strcmp(which, "lr")     ? tdm_lr_kind_names()
                                                          : NULL;
    if (!names)
        return PyErr_Format(PyExc_ValueError, "kind_names: 'strategy' or 'lr', not '%s'", which);
    PyObject *list = PyList_New(0);
    for (size_t k = 0; list && names[k]; k++) {
        PyObject *name = PyUnicode_FromString(names[k]);
        if (!name || PyList_Append(list, name) < 0)
            Py_CLEAR(list);
        Py_XDECREF(name);
    }
    return list;
}

PyObject *py_library_path(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    Dl_info info;
    if (!dladdr((void *)tdm_last_error, &info) || !info.dli_fname)
        Py_RETURN_NONE;
    return PyUnicode_FromString(info.dli_fname);
}

static void destroy_strategy(void *s)
{
    tdm_strategy_destroy(s);
}

enum { MAX_REPLICAS = 64 };

/* The devices of a list of ids into devices[] (*count of them; None: none, 0). */
static int find_devices(tdm_context *ctx, PyObject *ids, tdm_device **devices, size_t *count)
{
    *count = 0;
    if (ids == Py_None)
        return 0;
    if (!PyList_Check(ids)) {
        raise_invalid("devices must be a list of device ids such as \"opencl:0\"");
        return -1;
    }
    Py_ssize_t n = PyList_Size(ids);
    if (n < 1 || n > MAX_REPLICAS) {
        raise_invalid("devices must name between 1 and 64 devices");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *bytes = PyUnicode_AsUTF8String(PyList_GetItem(ids, i));
        if (!bytes)
            return -1;
        const char *id = PyBytes_AsString(bytes);
        tdm_status s = id ? tdm_context_find_device(ctx, id, &devices[(*count)++]) : TDM_OK;
        if (id && s == TDM_ERR_NOT_FOUND) /* the message names the ids there are */
            PyErr_Format(PyExc_ValueError, "%s", tdm_last_error());
        else if (id && s != TDM_OK)
            raise_status(s);
        Py_DECREF(bytes);
        if (!id || s != TDM_OK)
            return -1;
    }
    return 0;
}

/* Each of the devices as `split` logical devices in its place (tdm_device_split), so
 * that one card, or one CPU driver, holds several replicas. */
static int split_devices(tdm_device **devices, size_t *count, Py_ssize_t split)
{
    if (split == 1)
        return 0;
    if (split < 1 || split > MAX_REPLICAS || *count * (size_t)split > MAX_REPLICAS) {
        raise_invalid("split must be between 1 and 64 logical devices per device, and 64 in all");
        return -1;
    }
    tdm_device *physical[MAX_REPLICAS];
    memcpy(physical, devices, *count * sizeof *devices);
    for (size_t i = 0; i < *count; i++) {
        tdm_status s = tdm_device_split(physical[i], (uint32_t)split, devices + i * (size_t)split);
        if (s != TDM_OK) {
            raise_status(s);
            return -1;
        }
    }
    *count *= (size_t)split;
    return 0;
}

static tdm_status make_strategy(tdm_context *ctx, tdm_strategy_kind kind,
                                tdm_device *const *devices, size_t count, tdm_device *const *ps,
                                size_t ps_count, size_t ps_processes, tdm_strategy **out)
{
    tdm_device *const *chosen = count ? devices : NULL;
    switch (kind) {
    case TDM_STRATEGY_MULTI_WORKER:
        return tdm_strategy_create_multi_worker(ctx, chosen, count, NULL, out);
    case TDM_STRATEGY_ONE_DEVICE: return tdm_strategy_create_one_device(devices[0], NULL, out);
    case TDM_STRATEGY_PARAMETER_SERVER:
        return ps_processes ? tdm_strategy_create_parameter_server_job(ctx, devices, count,
                                                                       ps_processes, NULL, out)
                            : tdm_strategy_create_parameter_server(ctx, devices, count, ps,
                                                                   ps_count, NULL, out);
    default: return tdm_strategy_create_mirrored(ctx, chosen, count, NULL, out);
    }
}

/* strategy(kind, ids or None, ps ids or None, ps processes) -> strategy handle. kind, a
 * name of tandem/strategy_kinds.def: "mirrored" over this process's devices, "multi-worker" across the processes of the
 * MPI job this one is in, "one-device" on the first of ids, "parameter-server" with
 * replicas on ids and the variables on the ps ids' devices (in this process), or with
 * ps processes > 0 on the job's last ps processes. */
PyObject *py_strategy(PyObject *self, PyObject *args)
{
    (void)self;
    const char *kind_name;
    PyObject *ids, *ps_ids;
    Py_ssize_t ps_processes, split;
    if (!PyArg_ParseTuple(args, "sOOnn", &kind_name, &ids, &ps_ids, &ps_processes, &split))
        return NULL;
    tdm_strategy_kind kind;
    tdm_status parsed = tdm_strategy_kind_parse(kind_name, &kind);
    if (parsed != TDM_OK)
        return raise_status(parsed);
    PyObject *context = shared_context();
    tdm_context *ctx = context ? handle_get(context, "context") : NULL;
    tdm_device *devices[MAX_REPLICAS], *ps[MAX_REPLICAS];
    size_t count = 0, ps_count = 0;
    if (!ctx || find_devices(ctx, ids, devices, &count) < 0 ||
        find_devices(ctx, ps_ids, ps, &ps_count) < 0 || split_devices(devices, &count, split) < 0)
        return NULL;
    int ps_kind = kind == TDM_STRATEGY_PARAMETER_SERVER;
    if (kind == TDM_STRATEGY_ONE_DEVICE && count != 1)
        return raise_invalid("OneDeviceStrategy takes exactly one device id");
    if (ps_kind && !count)
        return raise_invalid("ParameterServerStrategy: name the workers' devices");
    if (ps_kind && !ps_processes && !ps_count) /* the first worker device keeps them */
        ps[ps_count++] = devices[0];
    tdm_strategy *strategy = NULL;
    tdm_status s;
    Py_BEGIN_ALLOW_THREADS s =
        make_strategy(ctx, kind, devices, count, ps, ps_count, (size_t)ps_processes, &strategy);
    Py_END_ALLOW_THREADS if (s != TDM_OK) return raise_status(s);
    return handle_new(strategy, destroy_strategy, context, "strategy");
}

/* strategy_devices(strategy, parameter) -> the ids of its replicas' devices, in
 * replica order; with parameter true, of its parameter devices instead (a
 * parameter-server strategy of one process; none for the others). */
PyObject *py_strategy_devices(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    int parameter;
    if (!PyArg_ParseTuple(args, "Op", &handle, &parameter))
        return NULL;
    tdm_strategy *s = handle_get(handle, "strategy");
    if (!s)
        return NULL;
    size_t n =
        parameter ? tdm_strategy_num_parameter_devices(s) : tdm_strategy_num_local_replicas(s);
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < n; i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_status st = tdm_device_describe(
            parameter ? tdm_strategy_parameter_device(s, i) : tdm_strategy_device(s, i), &d);
        PyObject *id = st == TDM_OK ? PyUnicode_FromString(d.id) : raise_status(st);
        if (!id || PyList_Append(list, id) < 0)
            Py_CLEAR(list);
        Py_XDECREF(id);
    }
    return list;
}

/* strategy_info(strategy) -> (replicas in sync over the job, workers, this worker's
 * index, whether it is the chief, parameter-server processes of the job, whether this
 * process is one). */
PyObject *py_strategy_info(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    tdm_strategy *s = handle_arg(args, "strategy", &handle);
    if (!s)
        return NULL;
    return Py_BuildValue(
        "nnnOnO", (Py_ssize_t)tdm_strategy_num_replicas(s), (Py_ssize_t)tdm_strategy_num_workers(s),
        (Py_ssize_t)tdm_strategy_worker_index(s), tdm_strategy_is_chief(s) ? Py_True : Py_False,
        (Py_ssize_t)tdm_strategy_num_parameter_servers(s),
        tdm_strategy_is_parameter_server(s) ? Py_True : Py_False);
}
