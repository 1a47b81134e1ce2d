/* Runs one case on one device: upload every buffer (guards included), run the
 * kernel, read every buffer back (inputs must come back unchanged). */
#include <string.h>

#include "conformance.h"
#include "platform/tdm_host.h"

static void free_all(tdm_buffer **bufs, unsigned count)
{
    for (unsigned b = 0; b < count; b++)
        tdm_buffer_free(bufs[b]);
}

static tdm_status upload(tdm_device *dev, const tdm_kernel_info *info, const conf_buffers *in,
                         tdm_buffer **bufs)
{
    tdm_status s = TDM_OK;
    for (unsigned b = 0; b < info->buffer_count && s == TDM_OK; b++) {
        size_t bytes = in->total[b] * tdm_kernel_type_size(info->buffers[b].type);
        s = tdm_buffer_alloc(dev, bytes, &bufs[b]);
        if (s == TDM_OK)
            s = tdm_buffer_write(bufs[b], 0, in->host[b], bytes);
    }
    return s;
}

static tdm_kernel_call make_call(const conf_case *c, const tdm_kernel_info *info,
                                 const conf_buffers *in, tdm_buffer **bufs)
{
    tdm_kernel_call call;
    memset(&call, 0, sizeof call);
    call.kernel = c->kernel;
    memcpy(call.u, c->u, sizeof call.u);
    memcpy(call.f, c->f, sizeof call.f);
    for (unsigned b = 0; b < info->buffer_count; b++) {
        if (!tdm_kernel_buffer_used(info, c->u, b))
            continue; /* an unused input stays NULL, as callers leave it */
        unsigned size = tdm_kernel_type_size(info->buffers[b].type);
        call.views[b].buffer = bufs[b];
        call.views[b].offset = (size_t)c->offset[b] * size;
        call.views[b].size = in->elements[b] * size;
    }
    return call;
}

static tdm_status download(const tdm_kernel_info *info, tdm_buffer **bufs, conf_buffers *out)
{
    tdm_status s = TDM_OK;
    for (unsigned b = 0; b < info->buffer_count && s == TDM_OK; b++)
        s = tdm_buffer_read(bufs[b], 0, out->host[b], tdm_buffer_size(bufs[b]));
    return s;
}

tdm_status conf_run(tdm_device *dev, const conf_case *c, const conf_buffers *in, conf_buffers *out)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    tdm_buffer *bufs[TDM_KERNEL_MAX_BUFFERS] = {0};
    tdm_status s = upload(dev, info, in, bufs);
    if (s == TDM_OK) {
        tdm_kernel_call call = make_call(c, info, in, bufs);
        s = tdm_kernel_run(dev, &call);
    }
    if (s == TDM_OK)
        s = tdm_device_finish(dev);
    if (s == TDM_OK)
        s = download(info, bufs, out);
    free_all(bufs, info->buffer_count);
    return s;
}

static double now(void)
{
    return (double)tdm_host_now_ns() * 1e-9;
}

tdm_status conf_prepare(tdm_device *dev, const conf_case *c, const conf_buffers *in,
                        conf_prepared *p)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    memset(p, 0, sizeof *p);
    p->dev = dev;
    p->buffer_count = info->buffer_count;
    tdm_status s = upload(dev, info, in, p->buffers);
    if (s == TDM_OK) {
        p->call = make_call(c, info, in, p->buffers);
        s = conf_launch_timed(p, NULL); /* warm up: program builds, first touches */
    }
    if (s != TDM_OK)
        conf_release(p);
    return s;
}

tdm_status conf_launch_timed(conf_prepared *p, double *seconds)
{
    return conf_launches_timed(p, 1, seconds);
}

tdm_status conf_launches_timed(conf_prepared *p, unsigned launches, double *seconds)
{
    double start = now();
    tdm_status s = TDM_OK;
    for (unsigned i = 0; i < launches && s == TDM_OK; i++)
        s = tdm_kernel_run(p->dev, &p->call);
    if (s == TDM_OK)
        s = tdm_device_finish(p->dev);
    if (seconds)
        *seconds = now() - start;
    return s;
}

void conf_release(conf_prepared *p)
{
    free_all(p->buffers, p->buffer_count);
    memset(p, 0, sizeof *p);
}
