/* A device whose driver reports it lost: the call that saw it returns
 * TDM_ERR_DEVICE_LOST, every later call on that device fails the same way at once
 * (naming it), other devices carry on, and freeing and closing still work. The loss
 * is injected by the test-only decorator of fault_backend.h, since no CPU driver can
 * be made to lose a device. */
#include "fault_backend.h"
#include "harness.h"

void test_case_device_lost(const test_run *run)
{
    (void)run;
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *ref, *pair[2];
    CHECK_OK(tdm_context_device(ctx, 0, &ref));
    CHECK_OK(tdm_device_split(ref, 2, pair));
    fault_wrap(ctx);

    tdm_buffer *doomed = NULL, *fine = NULL, *later = NULL;
    float x[4] = {1, 2, 3, 4}, y[4] = {0};
    CHECK_OK(tdm_buffer_alloc(pair[0], sizeof x, &doomed));
    CHECK_OK(tdm_buffer_alloc(pair[1], sizeof x, &fine));
    fault_arm(FAULT_LOSE, 1); /* the next call that reaches a device: doomed's write */
    CHECK(tdm_buffer_write(doomed, 0, x, sizeof x) == TDM_ERR_DEVICE_LOST);
    fault_arm(FAULT_LOSE, 0); /* the core alone must remember the loss from here */
    /* From now on the device fails fast, whatever the call. */
    CHECK_FAILS(tdm_buffer_read(doomed, 0, y, sizeof y), TDM_ERR_DEVICE_LOST, "lost earlier");
    CHECK_FAILS(tdm_device_finish(pair[0]), TDM_ERR_DEVICE_LOST, "reference:0/0");
    CHECK_FAILS(tdm_buffer_alloc(pair[0], 16, &later), TDM_ERR_DEVICE_LOST, "lost earlier");
    tdm_buffer_view to = tdm_buffer_whole(fine), from = tdm_buffer_whole(doomed);
    CHECK_FAILS(tdm_buffer_copy(&to, &from), TDM_ERR_DEVICE_LOST, "lost earlier");
    tdm_event *event = NULL;
    CHECK_FAILS(tdm_device_record_event(pair[0], &event), TDM_ERR_DEVICE_LOST, "lost earlier");
    /* The other replica is unaffected. */
    CHECK_OK(tdm_buffer_write(fine, 0, x, sizeof x));
    CHECK_OK(tdm_buffer_read(fine, 0, y, sizeof y));
    CHECK(y[3] == 4.0f);
    tdm_buffer_free(doomed); /* frees without asking the lost device to finish */
    tdm_context_destroy(ctx); /* closes the lost device and frees `fine` */
}
