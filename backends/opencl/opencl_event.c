/* Events: markers on a device's queue. */
#include "device/backend_api.h"
#include "opencl_internal.h"

/* The marker and its flush, under the serial lock where the platform needs it. */
static tdm_status record(tdm_opencl_device *d, cl_event *ev)
{
    cl_int err = clEnqueueMarkerWithWaitList(d->queue, 0, NULL, ev);

    if (err != CL_SUCCESS)
        return tdm_opencl_fail(d->dev, "clEnqueueMarkerWithWaitList", err);
    /* Polling with event_query never flushes, so without this the marker might
     * never reach the device. */
    tdm_device_count_submission(d->dev);
    err = clFlush(d->queue);
    if (err != CL_SUCCESS) {
        clReleaseEvent(*ev);
        return tdm_opencl_fail(d->dev, "clFlush", err);
    }
    return TDM_OK;
}

tdm_status tdm_opencl_event_record(tdm_device *dev, void *state, void **event)
{
    (void)dev;
    tdm_opencl_device *d = state;
    cl_event ev;
    tdm_opencl_serial_begin(d);
    tdm_status st = record(d, &ev);
    tdm_opencl_serial_end(d);
    if (st == TDM_OK)
        *event = ev;
    return st;
}

/* A negative execution status is the driver saying the work was lost. */
static tdm_status event_failed(const tdm_opencl_device *d, cl_int status)
{
    return tdm_fail(TDM_ERR_DEVICE_LOST, "%s '%s': a command failed with %s (%d)", d->desc->id,
                    d->desc->name, tdm_opencl_error_name(status), (int)status);
}

static cl_int event_status(cl_event ev, cl_int *status)
{
    return clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *status, status, NULL);
}

tdm_status tdm_opencl_event_wait(tdm_device *dev, void *state, void *event)
{
    const tdm_opencl_device *d = state;
    cl_event ev = event;
    cl_int status;
    tdm_opencl_serial_begin(d);
    tdm_device_count_host_wait(dev);
    cl_int err = clWaitForEvents(1, &ev);
    tdm_opencl_serial_end(d);

    if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST &&
        event_status(ev, &status) == CL_SUCCESS && status < 0)
        return event_failed(d, status);
    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(dev, "clWaitForEvents", err);
}

tdm_status tdm_opencl_event_query(tdm_device *dev, void *state, void *event, int *done)
{
    const tdm_opencl_device *d = state;
    cl_int status;
    tdm_opencl_serial_begin(d);
    cl_int err = event_status(event, &status);
    tdm_opencl_serial_end(d);

    if (err != CL_SUCCESS)
        return tdm_opencl_fail(dev, "clGetEventInfo", err);
    if (status < 0)
        return event_failed(d, status);
    *done = status == CL_COMPLETE;
    return TDM_OK;
}

/* A barrier on dev's queue waiting for src's marker: both queues are in one
 * context, where an event of one queue may gate another. */
tdm_status tdm_opencl_queue_wait(tdm_device *dev, void *state, tdm_device *src, void *src_state,
                                 void *event)
{
    (void)src;
    const tdm_opencl_device *d = state, *from = src_state;
    cl_event ev = event;
    if (d->context != from->context)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s and %s are in different OpenCL contexts",
                        d->desc->id, from->desc->id);
    tdm_opencl_serial_begin(d);
    cl_int err = clEnqueueBarrierWithWaitList(d->queue, 1, &ev, NULL);
    if (err == CL_SUCCESS) {
        tdm_device_count_submission(dev);
        err = clFlush(d->queue);
    }
    tdm_opencl_serial_end(d);
    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(dev, "clEnqueueBarrierWithWaitList", err);
}

/* A marker's end on the device's profiling clock: the marker completes once the work
 * before it on the in-order queue has. */
tdm_status tdm_opencl_timestamp(tdm_device *dev, void *state, uint64_t *device_ns)
{
    const tdm_opencl_device *d = state;
    if (!d->profiling)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s' has no profiling queue", d->desc->id,
                        d->desc->name);
    void *event;
    tdm_status st = tdm_opencl_event_record(dev, state, &event);
    if (st != TDM_OK)
        return st;
    st = tdm_opencl_event_wait(dev, state, event);
    if (st == TDM_OK) {
        cl_ulong end = 0;
        tdm_opencl_serial_begin(d);
        cl_int err =
            clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        tdm_opencl_serial_end(d);
        if (err == CL_PROFILING_INFO_NOT_AVAILABLE)
            st = tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s' times no markers", d->desc->id,
                          d->desc->name);
        else if (err != CL_SUCCESS)
            st = tdm_opencl_fail(dev, "clGetEventProfilingInfo", err);
        *device_ns = end;
    }
    tdm_opencl_event_release(dev, state, event);
    return st;
}

void tdm_opencl_event_release(tdm_device *dev, void *state, void *event)
{
    (void)dev;
    tdm_opencl_serial_begin(state);
    clReleaseEvent(event);
    tdm_opencl_serial_end(state);
}
