#include "device/memory/copy_worker.h"

tdm_worker *tdm_device_copy_worker(tdm_device *dev)
{
    tdm_mutex_lock(&dev->lock);
    tdm_status s = dev->copy_worker.started ? TDM_OK : tdm_worker_start(&dev->copy_worker);
    tdm_mutex_unlock(&dev->lock);
    return s == TDM_OK ? &dev->copy_worker : NULL;
}

void tdm_device_stop_copy_worker(tdm_device *dev)
{
    tdm_worker_stop(&dev->copy_worker);
}
