/* The fault-injecting decorator of fault_backend.h. One decorated table per backend
 * keeps two devices of one backend on one ops pointer, which the core compares to
 * find devices that can copy directly. */
#include <stdatomic.h>

#include "device/backend_api.h"
#include "device/device_impl.h" /* fault_wrap swaps a device's ops */
#include "fault_backend.h"

#define BACKENDS 3

static const tdm_backend_ops *original[BACKENDS];
static tdm_backend_ops decorated[BACKENDS];
static atomic_ulong counted[3];
static atomic_ulong armed_at;
static atomic_int armed_kind, fired;
static _Atomic(const tdm_device *) lost_device; /* stays lost, as a real one does */

static const tdm_backend_ops *real(const tdm_device *dev)
{
    return original[tdm_backend_device_desc(dev)->backend];
}

/* Counts a call; 1 when it is the one to fail. */
static int strikes(fault_kind kind)
{
    unsigned long n = atomic_fetch_add(&counted[kind], 1) + 1;
    if (atomic_load(&armed_kind) != (int)kind || n != atomic_load(&armed_at))
        return 0;
    atomic_store(&fired, 1);
    return 1;
}

/* Every call that reaches the device counts towards FAULT_LOSE. */
static tdm_status lost(const tdm_device *dev, const char *call)
{
    if (!strikes(FAULT_LOSE))
        return TDM_OK;
    return tdm_fail(TDM_ERR_DEVICE_LOST, "fault injection: device %s lost during %s",
                    tdm_backend_device_desc(dev)->id, call);
}

static tdm_status buffer_alloc(tdm_buffer *buf, void *device_state, void **state)
{
    const tdm_device *dev = tdm_backend_buffer_device(buf);
    tdm_status s = lost(dev, "buffer_alloc");
    if (s == TDM_OK && strikes(FAULT_ALLOC))
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                     "fault injection: device %s refuses to allocate %zu bytes",
                     tdm_backend_device_desc(dev)->id, tdm_backend_buffer_size(buf));
    return s == TDM_OK ? real(dev)->buffer_alloc(buf, device_state, state) : s;
}

static tdm_status launch(tdm_device *dev, void *state, const tdm_launch *l)
{
    tdm_status s = lost(dev, "a kernel launch");
    if (s == TDM_OK && strikes(FAULT_LAUNCH))
        s = tdm_fail(TDM_ERR_BACKEND, "fault injection: device %s fails to launch kernel %s",
                     dev->desc.id, tdm_kernel_get(l->kernel)->name);
    return s == TDM_OK ? real(dev)->launch(dev, state, l) : s;
}

static tdm_status write(tdm_buffer *buf, void *state, size_t offset, const void *src, size_t size)
{
    tdm_status s = lost(buf->device, "a write");
    return s == TDM_OK ? real(buf->device)->write(buf, state, offset, src, size) : s;
}

static tdm_status read(tdm_buffer *buf, void *state, size_t offset, void *dst, size_t size)
{
    tdm_status s = lost(buf->device, "a read");
    return s == TDM_OK ? real(buf->device)->read(buf, state, offset, dst, size) : s;
}

static tdm_status fill(tdm_buffer *buf, void *state, size_t offset, const uint32_t *pattern,
                       size_t words, size_t size)
{
    tdm_status s = lost(buf->device, "a fill");
    return s == TDM_OK ? real(buf->device)->fill(buf, state, offset, pattern, words, size) : s;
}

static tdm_status copy(tdm_buffer *dst, void *dst_state, size_t dst_offset, tdm_buffer *src,
                       void *src_state, size_t src_offset, size_t size)
{
    tdm_status s = lost(dst->device, "a copy");
    return s == TDM_OK ? real(dst->device)
                             ->copy(dst, dst_state, dst_offset, src, src_state, src_offset, size)
                       : s;
}

static tdm_status finish(tdm_device *dev, void *state)
{
    tdm_status s = lost(dev, "finish");
    return s == TDM_OK ? real(dev)->finish(dev, state) : s;
}

static tdm_status event_record(tdm_device *dev, void *state, void **event)
{
    tdm_status s = lost(dev, "an event");
    return s == TDM_OK ? real(dev)->event_record(dev, state, event) : s;
}

static tdm_status event_wait(tdm_device *dev, void *state, void *event)
{
    tdm_status s = lost(dev, "an event wait");
    return s == TDM_OK ? real(dev)->event_wait(dev, state, event) : s;
}

void fault_wrap(tdm_context *ctx)
{
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev = NULL;
        if (tdm_context_device(ctx, i, &dev) != TDM_OK || dev->ops == &decorated[dev->desc.backend])
            continue;
        tdm_backend_kind b = dev->desc.backend;
        original[b] = dev->ops;
        decorated[b] = *dev->ops;
        decorated[b].buffer_alloc = buffer_alloc;
        decorated[b].write = write;
        decorated[b].read = read;
        decorated[b].fill = fill;
        decorated[b].copy = copy;
        decorated[b].finish = finish;
        decorated[b].event_record = event_record;
        decorated[b].event_wait = event_wait;
        if (dev->ops->launch)
            decorated[b].launch = launch;
        dev->ops = &decorated[b];
    }
}

void fault_arm(fault_kind kind, unsigned long nth)
{
    for (int k = 0; k < 3; k++)
        atomic_store(&counted[k], 0);
    atomic_store(&fired, 0);
    atomic_store(&lost_device, NULL);
    atomic_store(&armed_kind, (int)kind);
    atomic_store(&armed_at, nth);
}

unsigned long fault_calls(fault_kind kind)
{
    return atomic_load(&counted[kind]);
}

int fault_fired(void)
{
    return atomic_load(&fired);
}
