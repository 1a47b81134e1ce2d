/* Internal: opening, identifying and closing the devices of a context. */
#ifndef TDM_CORE_DEVICE_REGISTRY_H
#define TDM_CORE_DEVICE_REGISTRY_H

#include "device/context_impl.h"

/* Describes and opens every physical device of a loaded backend and adds it to the
 * context; a device that fails to open is skipped with a warning. */
void tdm_registry_open_backend_devices(tdm_context *ctx, const tdm_backend_ops *ops,
                                       tdm_backend *instance);

/* Sets same_hardware_as for devices that are the same hardware as an earlier one
 * (tdm_same_hardware: UUID, else PCI bus, else LUID). */
void tdm_registry_mark_same_hardware(tdm_context *ctx);

/* device_choice.c: the devices tdm_context_default_devices chooses, into out (room
 * for every device of ctx); returns how many. The caller keeps the list from
 * growing meanwhile. */
size_t tdm_registry_default_devices(tdm_context *ctx, tdm_device **out);

/* Frees the device's remaining buffers, closes it and frees it. */
void tdm_registry_close_device(tdm_device *dev);

#endif
