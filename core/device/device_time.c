/* Device timestamps on the host's clock (docs/modules/device.md, "Device
 * timestamps"). A backend gives nanoseconds of the device's own clock; the core maps
 * them by pairing: a stamp taken while the host reads its clock before and after
 * lies in that interval, so the tightest of a few such pairs fixes the offset to
 * within half its width. Each stamp is also bounded by its own call's interval, which
 * keeps the stamps of one queue in order with the host's times around them. */
#include "base/clock.h"
#include "base/error.h"
#include "device/device_impl.h"
#include "device/device_status.h"
#include "device/device_time.h"

#define CALIBRATION_PAIRS 8

/* The tightest pair: the host's midpoint and the device's stamp. */
static tdm_status calibrate(tdm_device *dev)
{
    tdm_device_clock best = {.error = -1.0};
    for (int i = 0; i < CALIBRATION_PAIRS; i++) {
        uint64_t stamp;
        double before = tdm_seconds();
        tdm_status s = tdm_device_result(dev, dev->ops->timestamp(dev, dev->impl, &stamp));
        double after = tdm_seconds();
        if (s != TDM_OK)
            return s;
        if (best.error < 0.0 || 0.5 * (after - before) < best.error)
            best = (tdm_device_clock){.calibrated = 1,
                                      .device_ns = stamp,
                                      .host_seconds = 0.5 * (before + after),
                                      .error = 0.5 * (after - before)};
    }
    dev->clock = best;
    return TDM_OK;
}

tdm_status tdm_device_time_map(tdm_device *dev, uint64_t device_ns, double *seconds, double *error)
{
    if (!dev->ops->timestamp)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s keeps no timestamps", dev->desc.id);
    tdm_status s = dev->clock.calibrated ? TDM_OK : calibrate(dev);
    if (s != TDM_OK)
        return s;
    /* The difference first: both clocks' absolute values may exceed a double's 53 bits. */
    *seconds = dev->clock.host_seconds + 1e-9 * (double)(int64_t)(device_ns - dev->clock.device_ns);
    *error = dev->clock.error;
    return TDM_OK;
}

static double bounded(double t, double low, double high)
{
    return t < low ? low : t > high ? high : t;
}

tdm_status tdm_device_time(tdm_device *dev, double *seconds, tdm_time_source *source)
{
    tdm_status s = tdm_device_check_alive(dev, "tdm_device_time");
    if (s != TDM_OK)
        return s;
    if (dev->ops->timestamp && !dev->clock.unsupported) {
        uint64_t stamp;
        double before = tdm_seconds(), error;
        s = tdm_device_result(dev, dev->ops->timestamp(dev, dev->impl, &stamp));
        double after = tdm_seconds();
        if (s == TDM_OK)
            s = tdm_device_time_map(dev, stamp, seconds, &error);
        if (s == TDM_OK) {
            *seconds = bounded(*seconds, before, after);
            *source = TDM_TIME_DEVICE;
            return TDM_OK;
        }
        if (s != TDM_ERR_UNSUPPORTED)
            return s;
        dev->clock.unsupported = 1;
    }
    s = tdm_device_result(dev, dev->ops->finish(dev, dev->impl));
    *seconds = tdm_seconds();
    *source = TDM_TIME_HOST;
    return s;
}
