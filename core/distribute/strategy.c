/* Strategies: which devices the replicas run on, and the cross-device settings. */
#include <stdlib.h>
#include <string.h>

#include "device/context_impl.h"
#include "device/device_registry.h"
#include "base/error.h"
#include "base/options.h"
#include "collective/ranks.h"
#include "distribute/strategy_impl.h"

static const char *device_id(const tdm_device *dev)
{
    return dev->desc.id;
}

static tdm_status check_devices(tdm_context *ctx, tdm_device *const *devices, size_t count,
                                const char *func)
{
    for (size_t i = 0; i < count; i++) {
        if (!devices[i])
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: devices[%zu] is NULL", func, i);
        if (devices[i]->ctx != ctx)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: devices[%zu] (%s) belongs to another context", func, i,
                            device_id(devices[i]));
        for (size_t j = 0; j < i; j++) {
            if (devices[j] == devices[i])
                return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                "%s: device %s is used twice (devices[%zu] and devices[%zu]); "
                                "split it with tdm_device_split for two replicas on it",
                                func, device_id(devices[i]), j, i);
            if (tdm_device_same_hardware(devices[j], devices[i]))
                return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                                "%s: devices %s and %s are the same hardware; use one of "
                                "them, or split it into logical devices",
                                func, device_id(devices[j]), device_id(devices[i]));
        }
    }
    return TDM_OK;
}

static tdm_status read_options(const tdm_strategy_options *opts, tdm_strategy_options *out,
                               const char *func)
{
    tdm_strategy_options defaults = TDM_STRATEGY_OPTIONS_INIT;
    *out = defaults;
    tdm_status s = tdm_options_read(out, sizeof *out, opts, func);
    if (s != TDM_OK)
        return s;
    if (out->algorithm > TDM_COLLECTIVE_HOST)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown algorithm %d", func,
                        (int)out->algorithm);
    if (out->check_mirrored < 0) {
        const char *env = getenv("TDM_CHECK_MIRRORED");
        out->check_mirrored = env && !strcmp(env, "1");
    }
    if (out->check_collectives < 0) {
        const char *env = getenv("TDM_CHECK_COLLECTIVES");
        out->check_collectives = env && !strcmp(env, "1");
    }
    if (!(out->collective_timeout > 0)) {
        const char *env = getenv("TDM_COLLECTIVE_TIMEOUT");
        char *end = NULL;
        double t = env ? strtod(env, &end) : 0;
        out->collective_timeout = env && end != env && !*end && t > 0 ? t : 300;
    }
    out->size = sizeof *out;
    return TDM_OK;
}

static tdm_status create(tdm_context *ctx, tdm_strategy_kind kind, tdm_device *const *devices,
                         size_t count, const tdm_strategy_options *opts, const char *func,
                         tdm_strategy **out);

/* Devices given (checked), or the context's default devices. */
static tdm_status create_over(tdm_context *ctx, tdm_strategy_kind kind, tdm_device *const *devices,
                              size_t count, const tdm_strategy_options *opts, const char *func,
                              tdm_strategy **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(ctx, func);
    if (!devices != !count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: pass devices with count > 0, or NULL and 0 for every usable "
                        "device",
                        func);
    if (devices) {
        tdm_status s = check_devices(ctx, devices, count, func);
        return s != TDM_OK ? s : create(ctx, kind, devices, count, opts, func, out);
    }
    tdm_device **usable = malloc((tdm_context_device_count(ctx) + 1) * sizeof *usable);
    if (!usable)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    size_t n = tdm_registry_default_devices(ctx, usable);
    tdm_status s = n ? create(ctx, kind, usable, n, opts, func, out)
                     : tdm_fail(TDM_ERR_NOT_FOUND, "%s: the context has no usable device", func);
    free(usable);
    return s;
}

static tdm_status create(tdm_context *ctx, tdm_strategy_kind kind, tdm_device *const *devices,
                         size_t count, const tdm_strategy_options *opts, const char *func,
                         tdm_strategy **out)
{
    tdm_strategy *s = calloc(1, sizeof *s);
    tdm_device **devs = calloc(count, sizeof *devs);
    if (!s || !devs || tdm_mutex_init(&s->lock)) {
        free(s);
        free(devs);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    memcpy(devs, devices, count * sizeof *devs);
    *s = (tdm_strategy){.ctx = ctx,
                        .kind = kind,
                        .replica_count = count,
                        .global_replicas = count,
                        .devices = devs};
    tdm_status st = read_options(opts, &s->opts, func);
    if (st == TDM_OK && s->opts.reduce_device >= (int)count)
        st = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                      "%s: reduce_device %d is not a replica (there are %zu)", func,
                      s->opts.reduce_device, count);
    if (st != TDM_OK) {
        tdm_mutex_destroy(&s->lock);
        free(devs);
        free(s);
        return st;
    }
    *out = s;
    return TDM_OK;
}

tdm_status tdm_strategy_create_one_device(tdm_device *dev, const tdm_strategy_options *opts,
                                          tdm_strategy **out)
{
    TDM_CHECK_ARG(out, "tdm_strategy_create_one_device");
    *out = NULL;
    TDM_CHECK_ARG(dev, "tdm_strategy_create_one_device");
    return create(dev->ctx, TDM_STRATEGY_ONE_DEVICE, &dev, 1, opts,
                  "tdm_strategy_create_one_device", out);
}

tdm_status tdm_strategy_create_mirrored(tdm_context *ctx, tdm_device *const *devices, size_t count,
                                        const tdm_strategy_options *opts, tdm_strategy **out)
{
    return create_over(ctx, TDM_STRATEGY_MIRRORED, devices, count, opts,
                       "tdm_strategy_create_mirrored", out);
}

tdm_status tdm_strategy_create_multi_worker(tdm_context *ctx, tdm_device *const *devices,
                                            size_t count, const tdm_strategy_options *opts,
                                            tdm_strategy **out)
{
    static const char func[] = "tdm_strategy_create_multi_worker";
    tdm_strategy *s = NULL;
    tdm_status st = create_over(ctx, TDM_STRATEGY_MULTI_WORKER, devices, count, opts, func, &s);
    if (st == TDM_OK)
        st = tdm_ranks_open(s->opts.collective_timeout, s->opts.check_collectives, func, &s->ranks);
    if (st == TDM_OK)
        st = tdm_strategy_count_replicas(s, func);
    if (st != TDM_OK) {
        tdm_strategy_destroy(s);
        return st;
    }
    *out = s;
    return TDM_OK;
}

tdm_status tdm_strategy_create_parameter_server(tdm_context *ctx, tdm_device *const *workers,
                                                size_t worker_count, tdm_device *const *ps,
                                                size_t ps_count, const tdm_strategy_options *opts,
                                                tdm_strategy **out)
{
    static const char func[] = "tdm_strategy_create_parameter_server";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(ctx, func);
    if (!workers || !worker_count || !ps || !ps_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: pass at least one worker device and one parameter device "
                        "(%zu workers, %zu parameter devices)",
                        func, workers ? worker_count : 0, ps ? ps_count : 0);
    tdm_status st = check_devices(ctx, workers, worker_count, func);
    if (st == TDM_OK)
        st = check_devices(ctx, ps, ps_count, func);
    tdm_strategy *s = NULL;
    if (st == TDM_OK)
        st = create(ctx, TDM_STRATEGY_PARAMETER_SERVER, workers, worker_count, opts, func, &s);
    if (st != TDM_OK)
        return st;
    s->ps_devices = malloc(ps_count * sizeof *s->ps_devices);
    if (!s->ps_devices) {
        tdm_strategy_destroy(s);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    memcpy(s->ps_devices, ps, ps_count * sizeof *ps);
    s->ps_count = ps_count;
    *out = s;
    return TDM_OK;
}

tdm_status tdm_strategy_create_parameter_server_job(tdm_context *ctx, tdm_device *const *devices,
                                                    size_t count, size_t ps_processes,
                                                    const tdm_strategy_options *opts,
                                                    tdm_strategy **out)
{
    static const char func[] = "tdm_strategy_create_parameter_server_job";
    tdm_strategy *s = NULL;
    tdm_status st = create_over(ctx, TDM_STRATEGY_PARAMETER_SERVER, devices, count, opts, func, &s);
    if (st == TDM_OK)
        st = tdm_ranks_open(s->opts.collective_timeout, s->opts.check_collectives, func, &s->job);
    if (st == TDM_OK && (ps_processes == 0 || ps_processes >= s->job->count))
        st = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                      "%s: a job of %zu processes cannot have %zu parameter servers: it needs "
                      "at least one server and one worker (start it with mpirun -np N)",
                      func, s->job->count, ps_processes);
    if (st != TDM_OK) {
        tdm_strategy_destroy(s);
        return st;
    }
    s->job_servers = ps_processes;
    *out = s;
    return TDM_OK;
}

static void free_strategy(tdm_strategy *s)
{
    tdm_strategy_stop_workers(s);
    tdm_strategy_stop_engine(s);
    tdm_strategy_free_variables(s);
    free(s->shares);
    tdm_ranks_close(s->ranks);
    tdm_ranks_close(s->job);
    tdm_mutex_destroy(&s->lock);
    free(s->ps_devices);
    free(s->devices);
    free(s);
}

static void free_default(void *strategy)
{
    free_strategy(strategy);
}

tdm_status tdm_strategy_default(tdm_context *ctx, tdm_strategy **out)
{
    static const char func[] = "tdm_strategy_default";
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(ctx, func);
    tdm_status s = TDM_OK;
    tdm_mutex_lock(&ctx->lock);
    if (!ctx->default_strategy) {
        tdm_device **usable = malloc((tdm_context_device_count(ctx) + 1) * sizeof *usable);
        size_t n = usable ? tdm_registry_default_devices(ctx, usable) : 0;
        tdm_strategy *d = NULL;
        s = !usable ? tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func)
            : !n    ? tdm_fail(TDM_ERR_NOT_FOUND, "%s: the context has no usable device", func)
                    : create(ctx, TDM_STRATEGY_DEFAULT, usable, 1, NULL, func, &d);
        free(usable);
        ctx->default_strategy = d;
        ctx->default_strategy_free = free_default;
    }
    *out = ctx->default_strategy;
    tdm_mutex_unlock(&ctx->lock);
    return s;
}

void tdm_strategy_destroy(tdm_strategy *s)
{
    if (s && s->kind != TDM_STRATEGY_DEFAULT)
        free_strategy(s);
}

const char *tdm_collective_algorithm_name(tdm_collective_algorithm algorithm)
{
    static const char *const names[] = {"auto", "one-device", "ring", "tree", "direct", "host"};
    return (unsigned)algorithm < sizeof names / sizeof names[0] ? names[algorithm] : NULL;
}

tdm_status tdm_strategy_current(tdm_context *ctx, tdm_strategy **out)
{
    TDM_CHECK_ARG(out, "tdm_strategy_current");
    tdm_strategy *scope = tdm_mode()->scope;
    if (scope) {
        *out = scope;
        return TDM_OK;
    }
    return tdm_strategy_default(ctx, out);
}
