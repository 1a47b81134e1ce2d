/* Events: markers on a device's queue. */
#include "device/backend_api.h"
#include "opencl_internal.h"

/* The marker and its flush, under the serial lock where the platform needs it. */
static tdm_status record(tdm_device *dev, cl_event *ev)
{
    cl_command_queue queue = tdm_opencl_dev(dev)->queue;
    cl_int err = clEnqueueMarkerWithWaitList(queue, 0, NULL, ev);

    if (err != CL_SUCCESS)
        return tdm_opencl_fail(dev, "clEnqueueMarkerWithWaitList", err);
    /* Polling with event_query never flushes, so without this the marker might
     * never reach the device. */
    tdm_device_count_submission(dev);
    err = clFlush(queue);
    if (err != CL_SUCCESS) {
        clReleaseEvent(*ev);
        return tdm_opencl_fail(dev, "clFlush", err);
    }
    return TDM_OK;
}

tdm_status tdm_opencl_event_record(tdm_device *dev, void **event)
{
    cl_event ev;
    tdm_opencl_serial_begin(dev);
    tdm_status st = record(dev, &ev);
    tdm_opencl_serial_end(dev);
    if (st == TDM_OK)
        *event = ev;
    return st;
}

/* A negative execution status is the driver saying the work was lost. */
static tdm_status event_failed(tdm_device *dev, cl_int status)
{
    return tdm_fail(TDM_ERR_DEVICE_LOST, "%s '%s': a command failed with %s (%d)",
                    tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name,
                    tdm_opencl_error_name(status), (int)status);
}

static cl_int event_status(cl_event ev, cl_int *status)
{
    return clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *status, status, NULL);
}

tdm_status tdm_opencl_event_wait(tdm_device *dev, void *event)
{
    cl_event ev = event;
    cl_int status;
    tdm_opencl_serial_begin(dev);
    tdm_device_count_host_wait(dev);
    cl_int err = clWaitForEvents(1, &ev);
    tdm_opencl_serial_end(dev);

    if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST &&
        event_status(ev, &status) == CL_SUCCESS && status < 0)
        return event_failed(dev, status);
    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(dev, "clWaitForEvents", err);
}

tdm_status tdm_opencl_event_query(tdm_device *dev, void *event, int *done)
{
    cl_int status;
    tdm_opencl_serial_begin(dev);
    cl_int err = event_status(event, &status);
    tdm_opencl_serial_end(dev);

    if (err != CL_SUCCESS)
        return tdm_opencl_fail(dev, "clGetEventInfo", err);
    if (status < 0)
        return event_failed(dev, status);
    *done = status == CL_COMPLETE;
    return TDM_OK;
}

/* A barrier on dev's queue waiting for src's marker: both queues are in one
 * context, where an event of one queue may gate another. */
tdm_status tdm_opencl_queue_wait(tdm_device *dev, tdm_device *src, void *event)
{
    cl_event ev = event;
    if (tdm_opencl_dev(dev)->context != tdm_opencl_dev(src)->context)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s and %s are in different OpenCL contexts",
                        tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(src)->id);
    tdm_opencl_serial_begin(dev);
    cl_int err = clEnqueueBarrierWithWaitList(tdm_opencl_dev(dev)->queue, 1, &ev, NULL);
    if (err == CL_SUCCESS) {
        tdm_device_count_submission(dev);
        err = clFlush(tdm_opencl_dev(dev)->queue);
    }
    tdm_opencl_serial_end(dev);
    return err == CL_SUCCESS ? TDM_OK : tdm_opencl_fail(dev, "clEnqueueBarrierWithWaitList", err);
}

/* A marker's end on the device's profiling clock: the marker completes once the work
 * before it on the in-order queue has. */
tdm_status tdm_opencl_timestamp(tdm_device *dev, uint64_t *device_ns)
{
    if (!tdm_opencl_dev(dev)->profiling)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s' has no profiling queue",
                        tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name);
    void *event;
    tdm_status st = tdm_opencl_event_record(dev, &event);
    if (st != TDM_OK)
        return st;
    st = tdm_opencl_event_wait(dev, event);
    if (st == TDM_OK) {
        cl_ulong end = 0;
        tdm_opencl_serial_begin(dev);
        cl_int err =
            clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        tdm_opencl_serial_end(dev);
        if (err == CL_PROFILING_INFO_NOT_AVAILABLE)
            st = tdm_fail(TDM_ERR_UNSUPPORTED, "%s '%s' times no markers",
                          tdm_backend_device_desc(dev)->id, tdm_backend_device_desc(dev)->name);
        else if (err != CL_SUCCESS)
            st = tdm_opencl_fail(dev, "clGetEventProfilingInfo", err);
        *device_ns = end;
    }
    tdm_opencl_event_release(dev, event);
    return st;
}

void tdm_opencl_event_release(tdm_device *dev, void *event)
{
    tdm_opencl_serial_begin(dev);
    clReleaseEvent(event);
    tdm_opencl_serial_end(dev);
}
