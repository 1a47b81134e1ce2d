/* The CLI's context and device selection, shared by its subcommands. */
#ifndef TANDEM_CLI_DEVICE_SELECT_H
#define TANDEM_CLI_DEVICE_SELECT_H

#include <stddef.h>

#include "tandem/tandem.h"

#define MAX_SELECTED 32

/* A context over every backend whose warnings go to stderr; NULL (after printing
 * why) if it cannot be created. */
tdm_context *cli_context(void);

/* The device with that id ("opencl:1") or index ("2"); NULL after printing why. */
tdm_device *cli_find_device(tdm_context *ctx, const char *id);

/* The reference device, and the devices named by ids (default: every physical
 * device but the reference). Returns 0, or -1 after printing why. */
int cli_select_devices(tdm_context *ctx, const char *const *ids, size_t id_count,
                       tdm_device **reference, tdm_device **devices, size_t *count);

#endif
