/* tandem: devices, logical devices and completion. */
#ifndef TANDEM_DEVICE_H
#define TANDEM_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_device tdm_device;
typedef struct tdm_event tdm_event;

typedef enum tdm_device_type {
    TDM_DEVICE_OTHER = 0,
    TDM_DEVICE_CPU = 1,
    TDM_DEVICE_GPU = 2,           /* a discrete GPU */
    TDM_DEVICE_INTEGRATED_GPU = 3 /* a GPU sharing memory with the host */
} tdm_device_type;

#define TDM_DEVICE_NAME_MAX 256
#define TDM_DEVICE_ID_MAX 32

typedef struct tdm_device_desc {
    size_t size;                /* sizeof(tdm_device_desc): set by the INIT macro */
    char id[TDM_DEVICE_ID_MAX]; /* "opencl:1", "vulkan:0", "vulkan:0/1" (logical) */
    tdm_backend_kind backend;
    char name[TDM_DEVICE_NAME_MAX];
    char vendor[TDM_DEVICE_NAME_MAX];
    char driver[TDM_DEVICE_NAME_MAX]; /* driver name and version */
    tdm_device_type type;
    uint64_t global_memory;  /* bytes usable by this (logical) device */
    uint64_t max_allocation; /* largest single buffer, bytes */
    /* 0 if the driver does not say (Vulkan has no query) */
    uint32_t compute_units;
    int has_uuid;           /* uuid is meaningful */
    uint8_t uuid[16];       /* cl_khr_device_uuid / VkPhysicalDeviceIDProperties */
    int same_hardware_as;   /* index of an earlier device that is this same
                               hardware seen through another API or driver,
                               else -1: never use both in one strategy */
    int parent;             /* for a logical device, the index of the device it
                               was split from, else -1 */
    uint32_t logical_index; /* 0..logical_count-1 for logical devices */
    uint32_t logical_count; /* replicas the parent was split into, else 0 */
    uint32_t vendor_id;     /* PCI vendor id (0x10DE NVIDIA, 0x1002 AMD, 0x8086
                               Intel), or the driver's own id; 0 if unknown, or
                               if that id names another vendor than the driver's
                               vendor name does (PoCL gives Intel's on any CPU) */
    int has_pci_bus;        /* the pci_* fields are meaningful */
    uint32_t pci_domain, pci_bus, pci_device, pci_function; /* cl_khr_pci_bus_info /
                                                               VK_EXT_pci_bus_info */
    int has_luid;                            /* luid is meaningful (Windows adapters) */
    uint8_t luid[8];                         /* cl_khr_device_uuid / VkPhysicalDeviceIDProperties */
    int simulator;                           /* a software model of a device (Oclgrind), not
                                                the device itself: orders of magnitude slower */
    char gemm[TDM_DEVICE_NAME_MAX];          /* what runs its matrix products: "OpenBLAS in the
                                                device's queue", "CLBlast", "tandem's shader",
                                                "tandem's loops", or "none: " and why */
    char matrix_engine[TDM_DEVICE_NAME_MAX]; /* what multiplies float16 matrices in
                                                hardware: "f16xf16+f32 16x16x16 (subgroup
                                                32)", "available: ..., checked at first
                                                use", "not used: " or "none: " and why;
                                                "" where the backend has none to use */
    char gemm_tuning[TDM_DEVICE_NAME_MAX];   /* the row of the GEMM tuning table it took
                                                ("nvidia", "default"; TDM_GEMM_TUNING
                                                picks one), "" where the backend has none */
} tdm_device_desc;

#define TDM_DEVICE_DESC_INIT                                                                       \
    {                                                                                              \
        .size = sizeof(tdm_device_desc)                                                            \
    }

/* Devices of the context, physical first in discovery order (reference, OpenCL by
 * platform, Vulkan), then logical devices in the order they were created. */
TDM_API size_t tdm_context_device_count(const tdm_context *ctx);
TDM_API tdm_status tdm_context_device(tdm_context *ctx, size_t index, tdm_device **out);

/* The device whose tdm_device_desc.id is `id` ("opencl:0", "vulkan:1/0"), as
 * `tandem devices` lists them. TDM_ERR_NOT_FOUND, naming the ids the context has,
 * when none is. The device stays the context's: do not release it. */
TDM_API tdm_status tdm_context_find_device(tdm_context *ctx, const char *id, tdm_device **out);

/* The devices to use when the caller names none, as tdm_strategy_create_mirrored
 * with NULL, 0 uses them: the physical devices, each piece of hardware once (the
 * same UUID, else the same PCI bus address, else the same LUID: a card seen through
 * OpenCL and Vulkan, or two drivers, is used through the better one: the driver
 * that runs every kernel, then OpenCL); of those, the discrete GPUs when there is
 * one (an integrated GPU beside it would hold every step back), else the integrated
 * GPUs, else the devices of one CPU driver (PoCL before lavapipe: two CPU drivers
 * would share the same cores); a simulator only when nothing else is there, and the
 * reference device when not even that is. tdm_context_default_choice says why a
 * device is left out.
 * Writes the first `capacity` of them to out and their number to *count. */
TDM_API tdm_status tdm_context_default_devices(tdm_context *ctx, tdm_device **out, size_t capacity,
                                               size_t *count);

/* Why the default choice uses a device or leaves it out (tandem/device_choices.def). */
typedef enum tdm_device_choice {
#define TDM_DEVICE_CHOICE(name, value, description) name = value,
#include "tandem/device_choices.def"
#undef TDM_DEVICE_CHOICE
} tdm_device_choice;

/* The default choice's verdict on dev, as tdm_context_default_devices decides it:
 * TDM_CHOICE_USED for the devices it returns, else why it leaves dev out, so that a
 * tool can name what it left out (an integrated GPU beside a discrete one is used
 * when named, never by default). */
TDM_API tdm_status tdm_context_default_choice(tdm_context *ctx, const tdm_device *dev,
                                              tdm_device_choice *out);

/* The choice as a phrase ("used", "a simulator, never preferred over real hardware");
 * "unknown choice" for a value not in the list. */
TDM_API const char *tdm_device_choice_description(tdm_device_choice choice);

/* Fills *desc (whose size field the caller sets, see TDM_DEVICE_DESC_INIT). */
TDM_API tdm_status tdm_device_describe(const tdm_device *dev, tdm_device_desc *desc);

/* The device's index in the context. */
TDM_API size_t tdm_device_index(const tdm_device *dev);

/* 1 if a and b (of one context) may not be replicas of one strategy together: one
 * is the other's parent, or they are the same card seen through two APIs or drivers
 * (same_hardware_as), logical devices included; two logical devices of one parent
 * may. 0 otherwise, or if either is NULL. */
TDM_API int tdm_device_same_hardware(const tdm_device *a, const tdm_device *b);

/* Splits a physical device into `count` logical devices, each with its own queue
 * and an equal share of the memory (TF's logical device configuration): several
 * replicas on one card, or several replicas on one CPU for testing. The logical
 * devices are appended to the context's device list; out receives `count` handles
 * owned by the context. */
TDM_API tdm_status tdm_device_split(tdm_device *dev, uint32_t count, tdm_device **out);

/* What a device has been asked to do since it opened, for benchmarks and tools:
 * read it before and after, and take the difference. Versioned by size. */
typedef struct tdm_device_counters {
    size_t size;              /* sizeof(tdm_device_counters): set by the INIT macro */
    uint64_t kernel_launches; /* launches handed to the backend; a kernel run in pieces
                                 (binding windows, loop limits) counts each piece */
    uint64_t submissions;     /* batches of work handed to the device's queue: Vulkan's
                                 vkQueueSubmit, OpenCL's flushes that tandem asks for (its
                                 driver submits by itself too); 0 on the reference backend */
    uint64_t host_waits;      /* times the host blocked until work of the device completed:
                                 finishes, event waits, blocking transfers, and waits for a
                                 command buffer or staging space to come free */
} tdm_device_counters;

#define TDM_DEVICE_COUNTERS_INIT                                                                   \
    {                                                                                              \
        .size = sizeof(tdm_device_counters)                                                        \
    }

/* Fills *out (whose size field the caller sets, see TDM_DEVICE_COUNTERS_INIT). */
TDM_API tdm_status tdm_device_read_counters(const tdm_device *dev, tdm_device_counters *out);

/* Blocks until every operation submitted to the device has completed. */
TDM_API tdm_status tdm_device_finish(tdm_device *dev);

/* Records a point in the device's queue; the event completes when every operation
 * submitted to the device before it has completed. */
TDM_API tdm_status tdm_device_record_event(tdm_device *dev, tdm_event **out);

/* Blocks until the event completes. */
TDM_API tdm_status tdm_event_wait(tdm_event *event);

/* *done = 1 if the event has completed, else 0; does not block. */
TDM_API tdm_status tdm_event_query(tdm_event *event, int *done);

/* NULL-safe. */
TDM_API void tdm_event_destroy(tdm_event *event);

/* Device type as a word: "cpu", "gpu", "integrated", "other". */
TDM_API const char *tdm_device_type_name(tdm_device_type type);

#ifdef __cplusplus
}
#endif
#endif
