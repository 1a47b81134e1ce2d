/* The CLI's context and device selection, shared by its subcommands. */
#ifndef TANDEM_CLI_DEVICE_SELECT_H
#define TANDEM_CLI_DEVICE_SELECT_H

#include <stddef.h>

#include "cli_options.h"
#include "tandem/tandem.h"

#define MAX_SELECTED 32
#define CLI_BACKEND_KINDS 3 /* reference, opencl, vulkan */

/* A context over every backend whose warnings go to stderr; NULL (after printing
 * why) if it cannot be created. */
tdm_context *cli_context(void);

/* The backend's status (tdm_context_backend_status) and its message without the
 * leading "opencl: " that names the backend again. */
const char *cli_backend_status(tdm_context *ctx, tdm_backend_kind kind, tdm_status *status);

/* The device with that id ("opencl:1") or index ("2"), or a backend's first device
 * ("opencl", the first that cli_find_devices takes for it); NULL after printing
 * why. */
tdm_device *cli_find_device(tdm_context *ctx, const char *id);

/* The devices ids name, in order. An id is a device id from 'tandem devices'
 * ("opencl:1", "vulkan:0/1"), its index ("2"), or a backend name ("opencl",
 * "vulkan", "reference"): every physical device of that backend, each piece of
 * hardware once. Returns 0, or -1 after printing why. */
int cli_find_devices(tdm_context *ctx, const cli_list *ids, tdm_device **devices, size_t *count);

/* For the conformance check: the reference device, and the devices ids name
 * (default: every physical device but the reference). 0, or -1 after printing why. */
int cli_select_devices(tdm_context *ctx, const cli_list *ids, tdm_device **reference,
                       tdm_device **devices, size_t *count);

/* Keeps in place the devices that a strategy can take together, dropping each that
 * is the same hardware as one kept before it (tdm_device_same_hardware); returns how
 * many are kept. */
size_t cli_distinct_hardware(tdm_device **devices, size_t n);

/* For training: the devices ids name, else the library's default choice
 * (tdm_context_default_devices), each split into `split` logical devices when split
 * is over 1. 0, or -1 after printing why. */
int cli_training_devices(tdm_context *ctx, const cli_list *ids, unsigned split,
                         tdm_device **devices, size_t *count);

/* For the commands that read a saved model (predict, export, generate): the model
 * file at path on a strategy of one device, the one `id` names, else `fallback`'s
 * ("reference"), else the library's first default device. 0, or -1 after printing
 * "tandem COMMAND: what: why". */
int cli_load_model(tdm_context *ctx, const char *command, const char *id, const char *fallback,
                   const char *path, tdm_strategy **strategy, tdm_model **model);

#endif
