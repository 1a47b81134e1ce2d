/* The devices a strategy uses when the caller names none: each piece of hardware
 * once, through its better driver; the discrete GPUs when there are any, else the
 * integrated ones, else one CPU driver's devices, never two drivers stacked on the
 * same cores; a simulator only when nothing real is there; else the reference. */
#include <string.h>

#include "device/device_verdicts.h"

int tdm_same_hardware(const tdm_device_desc *a, const tdm_device_desc *b)
{
    if (a->has_uuid && b->has_uuid && !memcmp(a->uuid, b->uuid, sizeof a->uuid))
        return 1;
    if (a->has_pci_bus && b->has_pci_bus)
        return a->pci_domain == b->pci_domain && a->pci_bus == b->pci_bus &&
               a->pci_device == b->pci_device && a->pci_function == b->pci_function;
    return a->has_luid && b->has_luid && !memcmp(a->luid, b->luid, sizeof a->luid);
}

void tdm_mark_same_hardware(tdm_device_desc *const *descs, size_t n)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < j && descs[j]->same_hardware_as < 0; i++)
            if (descs[i]->parent < 0 && tdm_same_hardware(descs[i], descs[j]))
                descs[j]->same_hardware_as = (int)i;
}

/* How well a driver suits training: one that runs every kernel of the table first
 * (OpenCL without CLBlast lacks gemm), then OpenCL over Vulkan: CLBlast's tuned GEMM,
 * and the devices of one OpenCL context copy between each other directly. On a CPU,
 * PoCL trains far faster than lavapipe (docs/TRAINING.md). */
static int driver_rank(const tdm_choice_candidate *c)
{
    return 2 * c->runs_every_kernel + (c->desc->backend == TDM_BACKEND_OPENCL);
}

/* The first device of the hardware i is: itself, or the one it is the same as. */
static size_t hardware_of(const tdm_choice_candidate *devs, size_t i)
{
    int same = devs[i].desc->same_hardware_as;
    return same >= 0 ? (size_t)same : i;
}

static int same_driver(const tdm_device_desc *a, const tdm_device_desc *b)
{
    return a->backend == b->backend && !strcmp(a->driver, b->driver);
}

/* Leaves out lost, logical and reference devices, and every view of a piece of
 * hardware but its best-ranked one (the first among equals). */
static void one_per_hardware(const tdm_choice_candidate *devs, size_t n, tdm_device_choice *v)
{
    for (size_t i = 0; i < n; i++) {
        const tdm_device_desc *d = devs[i].desc;
        v[i] = devs[i].lost                          ? TDM_CHOICE_LOST
               : d->parent >= 0                      ? TDM_CHOICE_LOGICAL
               : d->backend == TDM_BACKEND_REFERENCE ? TDM_CHOICE_REFERENCE
                                                     : TDM_CHOICE_USED;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i && v[i] == TDM_CHOICE_USED; j++) {
            if (v[j] != TDM_CHOICE_USED || hardware_of(devs, j) != hardware_of(devs, i))
                continue;
            size_t loser = driver_rank(&devs[i]) > driver_rank(&devs[j]) ? j : i;
            v[loser] = TDM_CHOICE_SAME_HARDWARE;
        }
}

/* The rank of a device's kind among those still used: discrete (every type but
 * CPU and integrated), then integrated, then CPU; a simulator below all real ones. */
enum kind { KIND_SIMULATOR, KIND_CPU, KIND_INTEGRATED, KIND_DISCRETE };

static enum kind kind_of(const tdm_device_desc *d)
{
    if (d->simulator)
        return KIND_SIMULATOR;
    if (d->type == TDM_DEVICE_CPU)
        return KIND_CPU;
    return d->type == TDM_DEVICE_INTEGRATED_GPU ? KIND_INTEGRATED : KIND_DISCRETE;
}

static tdm_device_choice left_out_for(enum kind kind)
{
    switch (kind) {
    case KIND_SIMULATOR: return TDM_CHOICE_SIMULATOR;
    case KIND_CPU: return TDM_CHOICE_CPU_BESIDE_GPU;
    default: return TDM_CHOICE_INTEGRATED_BESIDE_DISCRETE;
    }
}

/* Of the CPU devices still used, those of the best driver, the first among equals:
 * every CPU driver runs on all the cores, so two would only take turns. */
static void one_cpu_driver(const tdm_choice_candidate *devs, size_t n, tdm_device_choice *v)
{
    const tdm_choice_candidate *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (v[i] == TDM_CHOICE_USED && (!best || driver_rank(&devs[i]) > driver_rank(best)))
            best = &devs[i];
    for (size_t i = 0; i < n; i++)
        if (v[i] == TDM_CHOICE_USED && !same_driver(devs[i].desc, best->desc))
            v[i] = TDM_CHOICE_OTHER_CPU_DRIVER;
}

void tdm_choose_default_devices(const tdm_choice_candidate *devs, size_t n, tdm_device_choice *v)
{
    one_per_hardware(devs, n, v);
    int best = -1;
    for (size_t i = 0; i < n; i++)
        if (v[i] == TDM_CHOICE_USED && (int)kind_of(devs[i].desc) > best)
            best = (int)kind_of(devs[i].desc);
    for (size_t i = 0; i < n; i++)
        if (v[i] == TDM_CHOICE_USED && (int)kind_of(devs[i].desc) != best)
            v[i] = left_out_for(kind_of(devs[i].desc));
    if (best == KIND_CPU)
        one_cpu_driver(devs, n, v);
    for (size_t i = 0; i < n && best < 0; i++) /* nothing else: the reference */
        if (v[i] == TDM_CHOICE_REFERENCE) {
            v[i] = TDM_CHOICE_USED;
            best = 0;
        }
}
