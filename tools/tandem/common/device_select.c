#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_select.h"

static void log_to_stderr(tdm_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    fprintf(stderr, "tandem: %s: %s\n", level >= TDM_LOG_WARN ? "warning" : "note", message);
}

/* TDM_LOG=debug|info|warn|error: the least severe message shown (default warn);
 * debug names, per device, what the backends chose and what the driver lacks. */
static tdm_log_level log_level_from_env(void)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    const char *value = getenv("TDM_LOG");
    for (int level = TDM_LOG_DEBUG; value && level <= TDM_LOG_ERROR; level++)
        if (!strcmp(value, names[level]))
            return (tdm_log_level)level;
    return TDM_LOG_WARN;
}

tdm_context *cli_context(void)
{
    tdm_context_options opts = TDM_CONTEXT_OPTIONS_INIT;
    opts.log = log_to_stderr;
    opts.log_level = log_level_from_env();
    tdm_context *ctx;
    if (tdm_context_create(&opts, &ctx) != TDM_OK) {
        fprintf(stderr, "tandem: %s\n", tdm_last_error());
        return NULL;
    }
    return ctx;
}

const char *cli_backend_status(tdm_context *ctx, tdm_backend_kind kind, tdm_status *status)
{
    const char *name = tdm_backend_name(kind), *message;
    tdm_context_backend_status(ctx, kind, status, &message);
    size_t len = strlen(name);
    if (!strncmp(message, name, len) && !strncmp(message + len, ": ", 2))
        message += len + 2;
    return message;
}

static tdm_device_desc describe(const tdm_device *dev)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &d);
    return d;
}

/* The index of the first device of the hardware dev is. */
static size_t hardware_of(const tdm_device *dev)
{
    tdm_device_desc d = describe(dev);
    return d.same_hardware_as >= 0 ? (size_t)d.same_hardware_as : tdm_device_index(dev);
}

static int is_backend(const char *name, tdm_backend_kind *kind)
{
    for (int k = 0; k < CLI_BACKEND_KINDS; k++)
        if (!strcmp(name, tdm_backend_name((tdm_backend_kind)k))) {
            *kind = (tdm_backend_kind)k;
            return 1;
        }
    return 0;
}

/* Appends dev; -1 after printing why when the list is full. */
static int append(tdm_device *dev, tdm_device **devices, size_t *count)
{
    if (*count == MAX_SELECTED) {
        fprintf(stderr, "tandem: more than %d devices\n", MAX_SELECTED);
        return -1;
    }
    devices[(*count)++] = dev;
    return 0;
}

/* Appends every physical device of the backend, each piece of hardware once. */
static int add_backend(tdm_context *ctx, tdm_backend_kind kind, tdm_device **devices, size_t *count)
{
    size_t first = *count;
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev;
        tdm_context_device(ctx, i, &dev);
        tdm_device_desc d = describe(dev);
        if (d.backend != kind || d.parent >= 0)
            continue;
        size_t j = first;
        while (j < *count && hardware_of(devices[j]) != hardware_of(dev))
            j++;
        if (j == *count && append(dev, devices, count) != 0)
            return -1;
    }
    if (*count > first)
        return 0;
    tdm_status status;
    const char *why = cli_backend_status(ctx, kind, &status);
    fprintf(stderr, "tandem: no %s device (%s)\n", tdm_backend_name(kind),
            status == TDM_OK ? "the backend found none" : why);
    return -1;
}

tdm_device *cli_find_device(tdm_context *ctx, const char *id)
{
    char *end;
    unsigned long index = strtoul(id, &end, 10);
    tdm_device *dev;
    tdm_backend_kind kind;
    if (is_backend(id, &kind)) { /* the first of the devices --devices NAME takes */
        tdm_device *all[MAX_SELECTED];
        size_t count = 0;
        return add_backend(ctx, kind, all, &count) == 0 ? all[0] : NULL;
    }
    if (*id && !*end) {
        if (tdm_context_device(ctx, index, &dev) == TDM_OK)
            return dev;
        fprintf(stderr, "tandem: %s\n", tdm_last_error());
        return NULL;
    }
    if (tdm_context_find_device(ctx, id, &dev) == TDM_OK)
        return dev;
    fprintf(stderr,
            "tandem: %s; give ids or indices from 'tandem devices', or a backend "
            "(reference, opencl, vulkan)\n",
            tdm_last_error());
    return NULL;
}

int cli_find_devices(tdm_context *ctx, const cli_list *ids, tdm_device **devices, size_t *count)
{
    *count = 0;
    for (size_t i = 0; i < ids->count; i++) {
        tdm_backend_kind kind;
        if (is_backend(ids->item[i], &kind)) {
            if (add_backend(ctx, kind, devices, count) != 0)
                return -1;
        } else {
            tdm_device *dev = cli_find_device(ctx, ids->item[i]);
            if (!dev || append(dev, devices, count) != 0)
                return -1;
        }
    }
    return 0;
}

int cli_select_devices(tdm_context *ctx, const cli_list *ids, tdm_device **reference,
                       tdm_device **devices, size_t *count)
{
    *reference = NULL;
    *count = 0;
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev;
        tdm_context_device(ctx, i, &dev);
        tdm_device_desc d = describe(dev);
        if (d.backend == TDM_BACKEND_REFERENCE && !*reference)
            *reference = dev;
        else if (!ids->count && d.parent < 0 && *count < MAX_SELECTED)
            devices[(*count)++] = dev;
    }
    if (ids->count && cli_find_devices(ctx, ids, devices, count) != 0)
        return -1;
    if (!*reference) {
        fprintf(stderr, "tandem: the reference backend is missing\n");
        return -1;
    }
    return 0;
}

size_t cli_distinct_hardware(tdm_device **devices, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int repeat = 0;
        for (size_t k = 0; k < kept && !repeat; k++)
            repeat = tdm_device_same_hardware(devices[k], devices[i]);
        if (!repeat)
            devices[kept++] = devices[i];
    }
    return kept;
}

int cli_training_devices(tdm_context *ctx, const cli_list *ids, unsigned split,
                         tdm_device **devices, size_t *count)
{
    tdm_device *chosen[MAX_SELECTED];
    size_t n = 0;
    if (ids->count && cli_find_devices(ctx, ids, chosen, &n) != 0)
        return -1;
    if (!ids->count && tdm_context_default_devices(ctx, chosen, MAX_SELECTED, &n) != TDM_OK) {
        fprintf(stderr, "tandem: %s\n", tdm_last_error());
        return -1;
    }
    if (n == 0) {
        fprintf(stderr, "tandem: no usable device (see 'tandem devices')\n");
        return -1;
    }
    n = n < MAX_SELECTED ? n : MAX_SELECTED;
    if (n * split > MAX_SELECTED) {
        fprintf(stderr, "tandem: --split %u over %zu device(s) makes %zu replicas, more than %d\n",
                split, n, n * split, MAX_SELECTED);
        return -1;
    }
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        if (split == 1) {
            devices[(*count)++] = chosen[i];
        } else if (tdm_device_split(chosen[i], split, devices + *count) == TDM_OK) {
            *count += split;
        } else {
            fprintf(stderr, "tandem: --split: %s\n", tdm_last_error());
            return -1;
        }
    }
    return 0;
}

static int load_failed(const char *command, const char *what, const char *why)
{
    fprintf(stderr, "tandem %s: %s: %s\n", command, what, why);
    return -1;
}

int cli_load_model(tdm_context *ctx, const char *command, const char *id, const char *fallback,
                   const char *path, tdm_strategy **strategy, tdm_model **model)
{
    tdm_device *dev = NULL;
    size_t found = 0;
    if (id || fallback)
        dev = cli_find_device(ctx, id ? id : fallback);
    else if (tdm_context_default_devices(ctx, &dev, 1, &found) != TDM_OK || !found)
        return load_failed(command, "device",
                           found ? tdm_last_error() : "no usable device (see 'tandem devices')");
    if (!dev)
        return -1;
    if (tdm_strategy_create_one_device(dev, NULL, strategy) != TDM_OK)
        return load_failed(command, "strategy", tdm_last_error());
    if (tdm_model_load(*strategy, path, model) != TDM_OK)
        return load_failed(command, "--model", tdm_last_error());
    return 0;
}
