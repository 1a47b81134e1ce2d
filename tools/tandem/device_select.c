#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_select.h"

static void log_to_stderr(tdm_log_level level, const char *message, void *user_data)
{
    (void)user_data;
    fprintf(stderr, "tandem: %s: %s\n", level >= TDM_LOG_WARN ? "warning" : "note", message);
}

tdm_context *cli_context(void)
{
    tdm_context_options opts = TDM_CONTEXT_OPTIONS_INIT;
    opts.log = log_to_stderr;
    tdm_context *ctx;
    if (tdm_context_create(&opts, &ctx) != TDM_OK) {
        fprintf(stderr, "tandem: %s\n", tdm_last_error());
        return NULL;
    }
    return ctx;
}

static tdm_device_desc describe(const tdm_device *dev)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &d);
    return d;
}

tdm_device *cli_find_device(tdm_context *ctx, const char *id)
{
    char *end;
    unsigned long index = strtoul(id, &end, 10);
    tdm_device *dev;
    if (*id && !*end) {
        if (tdm_context_device(ctx, index, &dev) == TDM_OK)
            return dev;
        fprintf(stderr, "tandem: %s\n", tdm_last_error());
        return NULL;
    }
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++)
        if (tdm_context_device(ctx, i, &dev) == TDM_OK && !strcmp(describe(dev).id, id))
            return dev;
    fprintf(stderr, "tandem: no device '%s' (see 'tandem devices')\n", id);
    return NULL;
}

int cli_select_devices(tdm_context *ctx, const char *const *ids, size_t id_count,
                       tdm_device **reference, tdm_device **devices, size_t *count)
{
    *reference = NULL;
    *count = 0;
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev;
        tdm_context_device(ctx, i, &dev);
        tdm_device_desc d = describe(dev);
        if (d.backend == TDM_BACKEND_REFERENCE && !*reference)
            *reference = dev;
        else if (!id_count && d.parent < 0 && *count < MAX_SELECTED)
            devices[(*count)++] = dev;
    }
    for (size_t i = 0; i < id_count && *count < MAX_SELECTED; i++)
        if (!(devices[(*count)++] = cli_find_device(ctx, ids[i])))
            return -1;
    if (!*reference) {
        fprintf(stderr, "tandem: the reference backend is missing\n");
        return -1;
    }
    return 0;
}
