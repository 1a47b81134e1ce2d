#include <stdio.h>

#include "format.h"

void format_bytes(uint64_t bytes, char *out, size_t out_size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = (double)bytes;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    if (unit == 0)
        snprintf(out, out_size, "%llu B", (unsigned long long)bytes);
    else
        snprintf(out, out_size, "%.1f %s", value, units[unit]);
}

void format_uuid(const uint8_t uuid[16], char *out)
{
    char *p = out;
    for (int i = 0; i < 16; i++) {
        p += sprintf(p, "%02x", uuid[i]);
        if (i == 3 || i == 5 || i == 7 || i == 9)
            *p++ = '-';
    }
    *p = '\0';
}

void format_pci_bus(const tdm_device_desc *d, char *out, size_t out_size)
{
    snprintf(out, out_size, "%04x:%02x:%02x.%x", d->pci_domain, d->pci_bus, d->pci_device,
             d->pci_function);
}

void format_luid(const uint8_t luid[8], char *out)
{
    for (int i = 0; i < 8; i++)
        sprintf(out + 2 * i, "%02x", luid[i]);
}
