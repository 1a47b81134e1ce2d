/* The context: backends and their devices, owned together; no globals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/backend_api.h"
#include "device/context_impl.h"
#include "device/device_registry.h"
#include "device/gpu_shape.h"
#include "base/error.h"
#include "device/memory/host_staging.h"
#include "device/log.h"
#include "base/options.h"

/* Every backend this build has, in discovery order. */
static const tdm_backend_ops *const built_backends[] = {
    &tdm_reference_backend,
#ifdef TDM_HAVE_OPENCL
    &tdm_opencl_backend,
#endif
#ifdef TDM_HAVE_VULKAN
    &tdm_vulkan_backend,
#endif
};
#define BUILT_BACKEND_COUNT (sizeof built_backends / sizeof built_backends[0])

int tdm_backend_built(tdm_backend_kind kind)
{
    for (size_t i = 0; i < BUILT_BACKEND_COUNT; i++)
        if (built_backends[i]->kind == kind)
            return 1;
    return 0;
}

static void set_backend_status(tdm_context *ctx, tdm_backend_kind kind, tdm_status status,
                               const char *message)
{
    ctx->backend_status[kind].status = status;
    snprintf(ctx->backend_status[kind].message, sizeof ctx->backend_status[kind].message, "%s",
             message);
}

/* A backend that fails to load is skipped, so one broken driver (or a missing
 * loader library) never takes the other backends' devices away from the user; its
 * status and the log say why. */
static void load_backend(tdm_context *ctx, const tdm_backend_ops *ops)
{
    const char *name = tdm_backend_name(ops->kind);
    tdm_backend *instance = NULL;
    tdm_status s = ops->create(ctx, &instance);
    if (s != TDM_OK) {
        set_backend_status(ctx, ops->kind, s, tdm_last_error());
        tdm_log(ctx, s == TDM_ERR_NOT_FOUND ? TDM_LOG_INFO : TDM_LOG_WARN,
                "%s backend not used: %s", name, tdm_last_error());
        return;
    }
    char summary[sizeof ctx->backend_status[0].message] = "built in";
    if (ops->summary)
        ops->summary(instance, summary, sizeof summary);
    set_backend_status(ctx, ops->kind, TDM_OK, summary);
    if (tdm_gpu_shape_wanted())
        ops = tdm_gpu_shape_ops(ops);
    size_t slot = ctx->backend_count++;
    ctx->backends[slot].ops = ops;
    ctx->backends[slot].instance = instance;
    tdm_registry_open_backend_devices(ctx, ops, instance);
}

/* Every backend a status, before any loads: those this build lacks or the options
 * leave out keep theirs. */
static void init_backend_status(tdm_context *ctx)
{
    for (int kind = 0; kind < TDM_MAX_BACKENDS; kind++) {
        char why[96];
        tdm_status s = TDM_ERR_UNSUPPORTED;
        snprintf(why, sizeof why, "this build of tandem has no %s backend",
                 tdm_backend_name((tdm_backend_kind)kind));
        if (tdm_backend_built((tdm_backend_kind)kind) &&
            !(ctx->options.backends & TDM_BACKEND_BIT(kind))) {
            s = TDM_ERR_NOT_FOUND;
            snprintf(why, sizeof why, "not requested in tdm_context_options.backends");
        }
        set_backend_status(ctx, (tdm_backend_kind)kind, s, why);
    }
}

static tdm_status context_init(tdm_context *ctx, const tdm_context_options *opts)
{
    tdm_context_options defaults = TDM_CONTEXT_OPTIONS_INIT;
    ctx->options = defaults;
    tdm_status s =
        tdm_options_read(&ctx->options, sizeof ctx->options, opts, "tdm_context_create: opts");
    if (s != TDM_OK)
        return s;
    if (tdm_mutex_init(&ctx->lock) != 0)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_context_create: cannot create a mutex");
    if (tdm_mutex_init(&ctx->staging_lock) != 0) {
        tdm_mutex_destroy(&ctx->lock);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_context_create: cannot create a mutex");
    }
    atomic_init(&ctx->validation_messages, 0);
    tdm_disk_cache_init(ctx);
    return TDM_OK;
}

tdm_status tdm_context_create(const tdm_context_options *opts, tdm_context **out)
{
    TDM_CHECK_ARG(out, "tdm_context_create");
    *out = NULL;
    tdm_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_context_create: out of host memory");
    tdm_status s = context_init(ctx, opts);
    if (s != TDM_OK) {
        free(ctx);
        return s;
    }
    init_backend_status(ctx);
    for (size_t i = 0; i < BUILT_BACKEND_COUNT; i++)
        if (ctx->options.backends & TDM_BACKEND_BIT(built_backends[i]->kind))
            load_backend(ctx, built_backends[i]);
    tdm_registry_mark_same_hardware(ctx);
    *out = ctx;
    return TDM_OK;
}

void tdm_context_destroy(tdm_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->default_strategy)
        ctx->default_strategy_free(ctx->default_strategy);
    /* Logical devices come after their parents: close in reverse. */
    for (size_t i = ctx->device_count; i-- > 0;)
        tdm_registry_close_device(ctx->devices[i]);
    for (size_t i = ctx->backend_count; i-- > 0;)
        ctx->backends[i].ops->destroy(ctx->backends[i].instance);
    tdm_disk_cache_report(ctx); /* after the devices wrote their pipeline caches */
    free(ctx->devices);
    tdm_staging_free_idle(ctx);
    tdm_mutex_destroy(&ctx->staging_lock);
    tdm_mutex_destroy(&ctx->lock);
    free(ctx);
}

size_t tdm_context_device_count(const tdm_context *ctx)
{
    return ctx ? atomic_load(&ctx->device_count) : 0;
}

tdm_status tdm_context_device(tdm_context *ctx, size_t index, tdm_device **out)
{
    TDM_CHECK_ARG(ctx, "tdm_context_device");
    TDM_CHECK_ARG(out, "tdm_context_device");
    tdm_mutex_lock(&ctx->lock);
    size_t n = ctx->device_count;
    *out = index < n ? ctx->devices[index] : NULL;
    tdm_mutex_unlock(&ctx->lock);
    if (!*out)
        return tdm_fail(TDM_ERR_NOT_FOUND,
                        "tdm_context_device: index %zu is out of range: the context has %zu "
                        "device(s)",
                        index, n);
    return TDM_OK;
}

/* By the id that tdm_device_desc.id and `tandem devices` show: what a user types. */
tdm_status tdm_context_find_device(tdm_context *ctx, const char *id, tdm_device **out)
{
    static const char func[] = "tdm_context_find_device";
    TDM_CHECK_ARG(ctx, func);
    TDM_CHECK_ARG(id, func);
    TDM_CHECK_ARG(out, func);
    char known[512] = "";
    size_t used = 0;
    *out = NULL;
    tdm_mutex_lock(&ctx->lock);
    for (size_t i = 0; i < ctx->device_count && !*out; i++) {
        const char *candidate = ctx->devices[i]->desc.id;
        if (strcmp(candidate, id) == 0)
            *out = ctx->devices[i];
        else if (used < sizeof known)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     candidate);
    }
    size_t count = ctx->device_count;
    tdm_mutex_unlock(&ctx->lock);
    if (!*out)
        return tdm_fail(TDM_ERR_NOT_FOUND, "%s: no device '%s'; the context has %zu: %s%s", func,
                        id, count, count ? known : "none", used >= sizeof known ? "..." : "");
    return TDM_OK;
}

void tdm_context_report_validation(tdm_context *ctx, const char *message)
{
    atomic_fetch_add(&ctx->validation_messages, 1);
    tdm_log(ctx, TDM_LOG_ERROR, "Vulkan validation: %s", message);
}

int tdm_context_wants_validation(const tdm_context *ctx)
{
    if (ctx->options.vulkan_validation >= 0)
        return ctx->options.vulkan_validation > 0;
    const char *env = getenv("TDM_VK_VALIDATION");
    return env && strcmp(env, "1") == 0;
}

tdm_status tdm_context_backend_status(const tdm_context *ctx, tdm_backend_kind kind,
                                      tdm_status *status, const char **message)
{
    static const char func[] = "tdm_context_backend_status";
    TDM_CHECK_ARG(ctx, func);
    TDM_CHECK_ARG(status, func);
    if ((unsigned)kind >= TDM_MAX_BACKENDS)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: no backend kind %d", func, (int)kind);
    *status = ctx->backend_status[kind].status;
    if (message)
        *message = ctx->backend_status[kind].message;
    return TDM_OK;
}

size_t tdm_context_validation_messages(const tdm_context *ctx)
{
    return ctx ? atomic_load(&ctx->validation_messages) : 0;
}
