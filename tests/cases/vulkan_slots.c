/* The Vulkan backend's optional slots, used the way backend.h lets the core use them:
 *
 *   vulkan_slots mapped     host_address gives lavapipe's coherent memory
 *   vulkan_slots unmapped   (TDM_VK_FORCE_STAGING=1) it gives NULL
 *
 * queue_wait: nothing to do for a device waiting for itself, TDM_ERR_UNSUPPORTED
 * between two logical devices (two VkDevices). host_address: the host reads there
 * what a launch wrote once an event after it has completed, and a launch issued
 * after a host write there sees the write, while one issued before it (and held in
 * the open batch until the event wait submitted it) saw the old contents. */
#include <stdlib.h>

#include "device/device_impl.h"
#include "harness.h"

#define N 256

static void check_queue_wait(tdm_device *dev)
{
    tdm_device *logical[2];
    CHECK_OK(tdm_device_split(dev, 2, logical));
    void *event = NULL;
    CHECK_OK(dev->ops->event_record(logical[0], logical[0]->impl, &event));
    if (!event)
        return;
    CHECK_OK(
        dev->ops->queue_wait(logical[0], logical[0]->impl, logical[0], logical[0]->impl, event));
    CHECK_FAILS(
        dev->ops->queue_wait(logical[1], logical[1]->impl, logical[0], logical[0]->impl, event),
        TDM_ERR_UNSUPPORTED, logical[1]->desc.id);
    dev->ops->event_release(logical[0], logical[0]->impl, event);
}

static int all_equal(const float *v, float want)
{
    for (size_t i = 0; i < N; i++)
        if (v[i] != want)
            return 0;
    return 1;
}

static void wait_for_device(tdm_device *dev)
{
    tdm_event *event = NULL;
    CHECK_OK(tdm_device_record_event(dev, &event));
    if (event)
        CHECK_OK(tdm_event_wait(event));
    tdm_event_destroy(event);
}

static void check_host_address(tdm_device *dev, int mapped)
{
    tdm_shape shape = TDM_SHAPE(N);
    tdm_tensor *x = NULL, *y = NULL, *z = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &x));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &y));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &shape, &z));
    if (!x || !y || !z)
        goto out;
    float *hx = dev->ops->host_address(tdm_tensor_view(x).buffer, tdm_tensor_view(x).buffer->impl);
    float *hy = dev->ops->host_address(tdm_tensor_view(y).buffer, tdm_tensor_view(y).buffer->impl);
    CHECK(mapped ? hx && hy : !hx && !hy);
    if (!hx || !hy)
        goto out;
    CHECK_OK(tdm_op_fill(x, 4.0f));
    CHECK_OK(tdm_op_scale(y, x, 2.0f)); /* recorded, held in the batch */
    wait_for_device(dev);
    CHECK(all_equal(hy, 8.0f) && all_equal(hx, 4.0f));
    CHECK_OK(tdm_op_scale(y, x, 3.0f)); /* reads x before the host writes it */
    wait_for_device(dev);
    for (size_t i = 0; i < N; i++)
        hx[i] = 5.0f;
    CHECK_OK(tdm_op_scale(z, x, 10.0f)); /* issued after the host write */
    wait_for_device(dev);
    CHECK(all_equal(hy, 12.0f));
    float back[N];
    CHECK_OK(tdm_tensor_read(z, back, sizeof back));
    CHECK(all_equal(back, 50.0f));
out:
    tdm_tensor_destroy(x);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(z);
}

void test_case_vulkan_slots(const test_run *run)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_VULKAN));
    tdm_device *dev = test_first_device(ctx, TDM_BACKEND_VULKAN);
    check_host_address(dev, !strcmp(run->argv[0], "mapped"));
    check_queue_wait(dev);
    CHECK(tdm_context_validation_messages(ctx) == 0);
    tdm_context_destroy(ctx);
}
