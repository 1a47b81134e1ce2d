/* Device descriptions from clGetDeviceInfo. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

/* cl_khr_device_uuid, cl_khr_pci_bus_info and the vendors' older PCI queries, for
 * headers that predate them. */
#ifndef CL_DEVICE_UUID_KHR
#define CL_DEVICE_UUID_KHR 0x106A
#define CL_DEVICE_LUID_VALID_KHR 0x106C
#define CL_DEVICE_LUID_KHR 0x106D
#endif
#ifndef CL_DEVICE_PCI_BUS_INFO_KHR
#define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
#endif
#define TDM_CL_DEVICE_TOPOLOGY_AMD 0x4037  /* cl_amd_device_attribute_query */
#define TDM_CL_DEVICE_PCI_BUS_ID_NV 0x4008 /* cl_nv_device_attribute_query */
#define TDM_CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#define TDM_CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A

/* A string property, malloc'd, or NULL: its length has no bound (extensions). */
static char *device_string(cl_device_id id, cl_device_info what)
{
    size_t size = 0;

    if (clGetDeviceInfo(id, what, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return NULL;
    char *s = malloc(size + 1);
    if (s && clGetDeviceInfo(id, what, size, s, NULL) == CL_SUCCESS) {
        s[size] = '\0';
        return s;
    }
    free(s);
    return NULL;
}

/* A string property into out, truncated to fit; "" when unavailable. */
static void copy_string(cl_device_id id, cl_device_info what, char *out, size_t cap)
{
    char *s = device_string(id, what);

    snprintf(out, cap, "%s", s ? s : "");
    free(s);
}

static cl_ulong device_ulong(cl_device_id id, cl_device_info what)
{
    cl_ulong v = 0;

    clGetDeviceInfo(id, what, sizeof v, &v, NULL);
    return v;
}

static cl_uint device_uint(cl_device_id id, cl_device_info what)
{
    cl_uint v = 0;

    clGetDeviceInfo(id, what, sizeof v, &v, NULL);
    return v;
}

/* Whether the space-separated extension list names ext as a whole word. */
static int has_extension(cl_device_id id, const char *ext)
{
    char *list = device_string(id, CL_DEVICE_EXTENSIONS);
    size_t len = strlen(ext);
    int found = 0;

    for (char *p = list ? strstr(list, ext) : NULL; p && !found; p = strstr(p + len, ext))
        found = (p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0');
    free(list);
    return found;
}

/* The device's single allocation, or less under the test knob TDM_CL_MAX_ALLOC=BYTES,
 * which makes a CPU driver as tight as a GPU's (the core splits and refuses by it). */
static uint64_t max_allocation(cl_device_id id)
{
    uint64_t reported = device_ulong(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    const char *knob = getenv("TDM_CL_MAX_ALLOC");
    char *end;
    unsigned long long limit = knob ? strtoull(knob, &end, 10) : 0;
    return knob && *end == '\0' && limit > 0 && limit < reported ? limit : reported;
}

/* A GPU that shares memory with the host is an integrated one. */
static tdm_device_type device_type(cl_device_id id)
{
    cl_device_type type = device_ulong(id, CL_DEVICE_TYPE);

    if (type & CL_DEVICE_TYPE_GPU)
        return device_uint(id, CL_DEVICE_HOST_UNIFIED_MEMORY) ? TDM_DEVICE_INTEGRATED_GPU
                                                              : TDM_DEVICE_GPU;
    return (type & CL_DEVICE_TYPE_CPU) ? TDM_DEVICE_CPU : TDM_DEVICE_OTHER;
}

/* The PCI bus address: the Khronos query, else AMD's topology, else NVIDIA's ids. */
static void describe_pci_bus(cl_device_id id, tdm_device_desc *desc)
{
    /* domain, bus, device, function; room for AMD's 24-byte topology union */
    uint32_t info[6] = {0};
    if (has_extension(id, "cl_khr_pci_bus_info") &&
        clGetDeviceInfo(id, CL_DEVICE_PCI_BUS_INFO_KHR, 4 * sizeof(uint32_t), info, NULL) ==
            CL_SUCCESS) {
        desc->has_pci_bus = 1;
    } else if (has_extension(id, "cl_amd_device_attribute_query") &&
               clGetDeviceInfo(id, TDM_CL_DEVICE_TOPOLOGY_AMD, sizeof info, info, NULL) ==
                   CL_SUCCESS &&
               info[0] == 1 /* PCIe */) {
        const uint8_t *pcie = (const uint8_t *)&info[1] + 17; /* bus, device, function */
        desc->has_pci_bus = 1;
        info[0] = 0;
        info[1] = pcie[0];
        info[2] = pcie[1];
        info[3] = pcie[2];
    } else if (has_extension(id, "cl_nv_device_attribute_query") &&
               clGetDeviceInfo(id, TDM_CL_DEVICE_PCI_BUS_ID_NV, sizeof info[1], &info[1], NULL) ==
                   CL_SUCCESS &&
               clGetDeviceInfo(id, TDM_CL_DEVICE_PCI_SLOT_ID_NV, sizeof info[2], &info[2], NULL) ==
                   CL_SUCCESS) {
        desc->has_pci_bus = 1;
        clGetDeviceInfo(id, TDM_CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof info[0], &info[0], NULL);
        info[3] = info[2] & 7; /* the slot id packs device << 3 | function */
        info[2] >>= 3;
    }
    desc->pci_domain = info[0];
    desc->pci_bus = info[1];
    desc->pci_device = info[2];
    desc->pci_function = info[3];
}

/* The UUID, and the LUID where the driver says it is valid (Windows adapters). */
static void describe_ids(cl_device_id id, tdm_device_desc *desc)
{
    if (!has_extension(id, "cl_khr_device_uuid"))
        return;
    desc->has_uuid =
        clGetDeviceInfo(id, CL_DEVICE_UUID_KHR, sizeof desc->uuid, desc->uuid, NULL) == CL_SUCCESS;
    cl_bool luid_valid = CL_FALSE;
    desc->has_luid =
        clGetDeviceInfo(id, CL_DEVICE_LUID_VALID_KHR, sizeof luid_valid, &luid_valid, NULL) ==
            CL_SUCCESS &&
        luid_valid &&
        clGetDeviceInfo(id, CL_DEVICE_LUID_KHR, sizeof desc->luid, desc->luid, NULL) == CL_SUCCESS;
}

/* The PCI vendor ids the vendors' own names go with. */
static const struct {
    uint32_t id;
    const char *names[3];
} known_vendors[] = {
    {0x8086, {"intel", NULL}},
    {0x1002, {"amd", "advanced micro devices", NULL}},
    {0x1022, {"amd", "advanced micro devices", NULL}},
    {0x10de, {"nvidia", NULL}},
};

static int names_vendor(const char *vendor, size_t k)
{
    char lower[TDM_DEVICE_NAME_MAX];
    size_t n = 0;
    for (; vendor[n] && n + 1 < sizeof lower; n++)
        lower[n] = (char)tolower((unsigned char)vendor[n]);
    lower[n] = '\0';
    for (size_t i = 0; known_vendors[k].names[i]; i++)
        if (strstr(lower, known_vendors[k].names[i]))
            return 1;
    return 0;
}

/* The driver's vendor id, unless its own vendor name says another vendor: PoCL's
 * CPU device gives Intel's id on an AMD CPU ("AuthenticAMD"). Then the id is
 * unknown (0): the name stands as the driver says it, and no id is made up. */
static uint32_t vendor_id(cl_device_id id, const char *vendor)
{
    uint32_t reported = device_uint(id, CL_DEVICE_VENDOR_ID);
    size_t count = sizeof known_vendors / sizeof known_vendors[0];
    for (size_t k = 0; k < count; k++)
        if (known_vendors[k].id == reported && !names_vendor(vendor, k))
            for (size_t other = 0; other < count; other++)
                if (names_vendor(vendor, other))
                    return 0;
    return reported;
}

/* Oclgrind models a GPU in software, a thousand times slower than any real device;
 * OpenCL has no query that says so, so its platform is known by name. */
static int is_simulator(const tdm_opencl_physical *phys)
{
    return strstr(phys->platform->name, "Oclgrind") != NULL;
}

/* What opencl_gemm.c will choose when the device opens. */
static void describe_gemm(cl_device_id id, tdm_device_desc *desc)
{
    const char *why;
    if (tdm_opencl_host_gemm_usable(id, desc->type))
        snprintf(desc->gemm, sizeof desc->gemm, "OpenBLAS in the device's queue");
    else if (tdm_opencl_clblast_load(&why))
        snprintf(desc->gemm, sizeof desc->gemm, "CLBlast");
    else
        snprintf(desc->gemm, sizeof desc->gemm, "none: %s", why);
}

void tdm_opencl_describe(const tdm_backend *be, size_t index, tdm_device_desc *desc)
{
    const tdm_opencl_physical *phys = &be->devices[index];
    cl_device_id id = phys->id;
    char *version = device_string(id, CL_DRIVER_VERSION);

    desc->backend = TDM_BACKEND_OPENCL;
    copy_string(id, CL_DEVICE_NAME, desc->name, sizeof desc->name);
    copy_string(id, CL_DEVICE_VENDOR, desc->vendor, sizeof desc->vendor);
    if (snprintf(desc->driver, sizeof desc->driver, "%s %s", phys->platform->name,
                 version ? version : "") < 0)
        desc->driver[0] = '\0'; /* truncation is fine, an encoding error is not */
    free(version);
    desc->type = device_type(id);
    desc->global_memory = device_ulong(id, CL_DEVICE_GLOBAL_MEM_SIZE);
    desc->max_allocation = max_allocation(id);
    desc->compute_units = device_uint(id, CL_DEVICE_MAX_COMPUTE_UNITS);
    desc->vendor_id = vendor_id(id, desc->vendor);
    describe_ids(id, desc);
    describe_pci_bus(id, desc);
    desc->simulator = is_simulator(phys);
    describe_gemm(id, desc);
}
