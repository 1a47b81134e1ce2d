/* Human-readable formatting for the CLI. */
#ifndef TANDEM_CLI_FORMAT_H
#define TANDEM_CLI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/device.h"

/* "3.8 GiB", "512 MiB", "17 B" into out. */
void format_bytes(uint64_t bytes, char *out, size_t out_size);

/* "6d657361-3232-2e33-2e36-000000000000" into out (at least 37 bytes). */
void format_uuid(const uint8_t uuid[16], char *out);

/* The PCI bus address, "0000:01:00.0", into out (at least 16 bytes). */
void format_pci_bus(const tdm_device_desc *d, char *out, size_t out_size);

/* "0a1b2c3d4e5f6071" into out (at least 17 bytes). */
void format_luid(const uint8_t luid[8], char *out);

#endif
