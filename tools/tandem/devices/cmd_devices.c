/* tandem devices: a table (or JSON) of every device on every backend. */
#include <stdio.h>

#include "cli_options.h"
#include "commands.h"
#include "device_select.h"
#include "format.h"
#include "json_writer.h"
#include "tandem/tandem.h"

static void print_note(const tdm_device_desc *d, tdm_device_choice choice)
{
    if (d->simulator && choice != TDM_CHOICE_SIMULATOR)
        printf("  (simulator)");
    if (d->same_hardware_as >= 0)
        printf("  (same hardware as #%d)", d->same_hardware_as);
    if (d->parent >= 0)
        printf("  (logical %u of %u of #%d)", d->logical_index + 1, d->logical_count, d->parent);
    else if (choice != TDM_CHOICE_USED && choice != TDM_CHOICE_SAME_HARDWARE)
        printf("  (not a default: %s)", tdm_device_choice_description(choice));
}

static void print_row(size_t index, const tdm_device_desc *d, tdm_device_choice choice)
{
    char memory[32], max_alloc[32], units[16] = "?";
    format_bytes(d->global_memory, memory, sizeof memory);
    format_bytes(d->max_allocation, max_alloc, sizeof max_alloc);
    if (d->compute_units)
        snprintf(units, sizeof units, "%u", d->compute_units);
    printf("%3zu  %-12s %-40.40s %-18.18s %-10s %10s %10s %4s", index, d->id, d->name, d->vendor,
           tdm_device_type_name(d->type), memory, max_alloc, units);
    print_note(d, choice);
    printf("\n");
    if (d->matrix_engine[0])
        printf("%3s  matrix engine: %s\n", "", d->matrix_engine);
}

static void print_table(const tdm_device_desc *descs, const tdm_device_choice *choices, size_t n)
{
    printf("%3s  %-12s %-40s %-18s %-10s %10s %10s %4s\n", "#", "device", "name", "vendor", "type",
           "memory", "max alloc", "CUs");
    for (size_t i = 0; i < n; i++)
        print_row(i, &descs[i], choices[i]);
    if (n == 0)
        printf("(no devices: install an OpenCL or Vulkan driver)\n");
}

/* Every backend, available or not and why: a missing driver or loader library. */
static void print_backends(tdm_context *ctx)
{
    printf("\n%-10s %s\n", "backend", "status");
    for (int kind = 0; kind < CLI_BACKEND_KINDS; kind++) {
        const char *name = tdm_backend_name((tdm_backend_kind)kind);
        tdm_status status;
        const char *message = cli_backend_status(ctx, (tdm_backend_kind)kind, &status);
        if (status == TDM_OK)
            printf("%-10s available: %s\n", name, message);
        else
            printf("%-10s unavailable (%s): %s\n", name, tdm_status_str(status), message);
    }
}

/* Whether jobs of processes can run: the transport plugin, or why not. */
static void print_processes(void)
{
    const char *message = NULL;
    tdm_status status = tdm_multi_process_support(&message);
    if (status == TDM_OK)
        printf("%-10s available: %s\n", "processes", message);
    else
        printf("%-10s unavailable (%s): %s\n", "processes", tdm_status_str(status), message);
}

static void json_processes(json_writer *w)
{
    const char *message = NULL;
    tdm_status status = tdm_multi_process_support(&message);
    json_begin_object(w, "processes");
    json_bool(w, "available", status == TDM_OK);
    json_string(w, "status", tdm_status_str(status));
    json_string(w, "message", message);
    json_end_object(w);
}

static void json_backends(json_writer *w, tdm_context *ctx)
{
    json_begin_array(w, "backends");
    for (int kind = 0; kind < CLI_BACKEND_KINDS; kind++) {
        tdm_status status;
        const char *message;
        tdm_context_backend_status(ctx, (tdm_backend_kind)kind, &status, &message);
        json_begin_object(w, NULL);
        json_string(w, "name", tdm_backend_name((tdm_backend_kind)kind));
        json_bool(w, "available", status == TDM_OK);
        json_string(w, "status", tdm_status_str(status));
        json_string(w, "message", message);
        json_end_object(w);
    }
    json_end_array(w);
}

/* A count or id the driver does not give: null, as the table's "?". */
static void json_known(json_writer *w, const char *key, uint64_t value)
{
    if (value)
        json_uint(w, key, value);
    else
        json_null(w, key);
}

static void json_device(json_writer *w, size_t index, const tdm_device_desc *d,
                        tdm_device_choice choice)
{
    json_begin_object(w, NULL);
    json_uint(w, "index", index);
    json_string(w, "id", d->id);
    json_string(w, "backend", tdm_backend_name(d->backend));
    json_string(w, "name", d->name);
    json_string(w, "vendor", d->vendor);
    json_known(w, "vendor_id", d->vendor_id);
    json_string(w, "driver", d->driver);
    json_string(w, "type", tdm_device_type_name(d->type));
    json_uint(w, "global_memory", d->global_memory);
    json_uint(w, "max_allocation", d->max_allocation);
    json_known(w, "compute_units", d->compute_units);
    char uuid[40];
    format_uuid(d->uuid, uuid);
    if (d->has_uuid)
        json_string(w, "uuid", uuid);
    else
        json_null(w, "uuid");
    char text[40];
    format_pci_bus(d, text, sizeof text);
    if (d->has_pci_bus)
        json_string(w, "pci_bus", text);
    else
        json_null(w, "pci_bus");
    format_luid(d->luid, text);
    if (d->has_luid)
        json_string(w, "luid", text);
    else
        json_null(w, "luid");
    json_bool(w, "simulator", d->simulator);
    json_string(w, "gemm", d->gemm);
    if (d->matrix_engine[0])
        json_string(w, "matrix_engine", d->matrix_engine);
    else
        json_null(w, "matrix_engine");
    if (d->gemm_tuning[0])
        json_string(w, "gemm_tuning", d->gemm_tuning);
    else
        json_null(w, "gemm_tuning");
    json_int(w, "same_hardware_as", d->same_hardware_as);
    json_int(w, "parent", d->parent);
    json_bool(w, "default", choice == TDM_CHOICE_USED);
    json_string(w, "default_choice", tdm_device_choice_description(choice));
    json_end_object(w);
}

static void print_json(tdm_context *ctx, const tdm_device_desc *descs,
                       const tdm_device_choice *choices, size_t n)
{
    json_writer w = {stdout, 0, 0};
    json_begin_object(&w, NULL);
    json_begin_array(&w, "devices");
    for (size_t i = 0; i < n; i++)
        json_device(&w, i, &descs[i], choices[i]);
    json_end_array(&w);
    json_backends(&w, ctx);
    json_processes(&w);
    json_end_object(&w);
}

static const cli_command devices_command = {
    .name = "devices",
    .about = "Lists every device of every backend (reference, OpenCL, Vulkan), then each "
             "backend: what it loaded, or why it is unavailable.",
};

#define MAX_LISTED 256

int cmd_devices(int argc, char **argv)
{
    int json = 0, status;
    const cli_option table[] = {
        {CLI_ENTRY("--json", NULL, CLI_FLAG, &json), .flag_value = 1,
         .help = "machine-readable output"},
    };
    if (cli_parse_command(&devices_command, table, 1, argc, argv, &status))
        return status;
    tdm_context *ctx = cli_context();
    if (!ctx)
        return 1;
    static tdm_device_desc descs[MAX_LISTED];
    static tdm_device_choice choices[MAX_LISTED];
    size_t n = tdm_context_device_count(ctx);
    n = n < MAX_LISTED ? n : MAX_LISTED;
    for (size_t i = 0; i < n; i++) {
        tdm_device *dev;
        descs[i] = (tdm_device_desc)TDM_DEVICE_DESC_INIT;
        tdm_context_device(ctx, i, &dev);
        tdm_device_describe(dev, &descs[i]);
        tdm_context_default_choice(ctx, dev, &choices[i]);
    }
    if (json) {
        print_json(ctx, descs, choices, n);
    } else {
        print_table(descs, choices, n);
        print_backends(ctx);
        print_processes();
    }
    tdm_context_destroy(ctx);
    return 0;
}
