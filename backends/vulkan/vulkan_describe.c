/* Fills a tdm_device_desc from a physical device's properties. */
#include <stdio.h>
#include <string.h>

#include "vulkan_internal.h"

/* The optional property structs, chained onto VkPhysicalDeviceProperties2. */
typedef struct device_properties {
    VkPhysicalDeviceProperties2 base;
    VkPhysicalDeviceIDProperties id;
    VkPhysicalDeviceMaintenance3Properties maintenance3;
    VkPhysicalDeviceDriverProperties driver;
    VkPhysicalDeviceShaderCoreProperties2AMD amd_cores;
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv_sms;
    VkPhysicalDevicePCIBusInfoPropertiesEXT pci_bus;
    int has_driver, has_amd_cores, has_nv_sms, has_pci_bus;
} device_properties;

static void query_properties(const tdm_backend *be, VkPhysicalDevice physical, device_properties *p)
{
    memset(p, 0, sizeof *p);
    p->base.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p->id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    p->maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    p->driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    p->amd_cores.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD;
    p->nv_sms.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
    p->pci_bus.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT;
    p->has_driver = tdm_vk_device_api(be, physical) >= VK_API_VERSION_1_2 ||
                    tdm_vk_has_extension(physical, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    p->has_amd_cores =
        tdm_vk_has_extension(physical, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME);
    p->has_nv_sms = tdm_vk_has_extension(physical, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    p->has_pci_bus = tdm_vk_has_extension(physical, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);

    p->base.pNext = &p->id;
    p->id.pNext = &p->maintenance3;
    void **tail = &p->maintenance3.pNext;
    if (p->has_driver) {
        *tail = &p->driver;
        tail = &p->driver.pNext;
    }
    if (p->has_amd_cores) {
        *tail = &p->amd_cores;
        tail = &p->amd_cores.pNext;
    }
    if (p->has_nv_sms) {
        *tail = &p->nv_sms;
        tail = &p->nv_sms.pNext;
    }
    if (p->has_pci_bus)
        *tail = &p->pci_bus;
    vkGetPhysicalDeviceProperties2(physical, &p->base);
}

static void describe_vendor(uint32_t vendor, char *out, size_t size)
{
    static const struct {
        uint32_t id;
        const char *name;
    } known[] = {{0x1002, "AMD"}, {0x10DE, "NVIDIA"},   {0x8086, "Intel"},
                 {0x13B5, "ARM"}, {0x5143, "Qualcomm"}, {0x10005, "Mesa"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].id == vendor) {
            snprintf(out, size, "%s", known[i].name);
            return;
        }
    snprintf(out, size, "0x%04X", vendor);
}

static void describe_driver(const device_properties *p, char *out, size_t size)
{
    if (p->has_driver) {
        /* Each part is at most 255 characters; the id is cut, never overflowed. */
        snprintf(out, size, "%.120s %.120s", p->driver.driverName, p->driver.driverInfo);
        return;
    }
    uint32_t v = p->base.properties.driverVersion;
    if (p->base.properties.vendorID == 0x10DE) /* NVIDIA packs 10.8.8.6 bits */
        snprintf(out, size, "%u.%u.%u", v >> 22, (v >> 14) & 0xFF, (v >> 6) & 0xFF);
    else
        snprintf(out, size, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                 VK_API_VERSION_PATCH(v));
}

static tdm_device_type describe_type(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return TDM_DEVICE_CPU;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return TDM_DEVICE_GPU;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return TDM_DEVICE_INTEGRATED_GPU;
    default: return TDM_DEVICE_OTHER;
    }
}

static void describe_memory(VkPhysicalDevice physical, const device_properties *p,
                            tdm_device_desc *desc)
{
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    uint64_t total = 0, largest = 0;
    for (uint32_t i = 0; i < memory.memoryHeapCount; i++) {
        const VkMemoryHeap *heap = &memory.memoryHeaps[i];
        if (!(heap->flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT))
            continue;
        total += heap->size;
        if (heap->size > largest)
            largest = heap->size;
    }
    uint64_t max_allocation = p->maintenance3.maxMemoryAllocationSize;
    desc->global_memory = total;
    desc->max_allocation = max_allocation < largest ? max_allocation : largest;
}

/* Vulkan has no portable count of compute units: AMD and NVIDIA extensions give
 * one, every other device reports 0, which means unknown. */
static uint32_t describe_compute_units(const device_properties *p)
{
    if (p->has_amd_cores)
        return p->amd_cores.activeComputeUnitCount;
    if (p->has_nv_sms)
        return p->nv_sms.shaderSMCount;
    return 0;
}

/* The UUID, the LUID where valid (Windows adapters) and the PCI bus address: what
 * finds the same card seen through another API or driver. */
static void describe_ids(const device_properties *p, tdm_device_desc *desc)
{
    static const uint8_t zero[VK_UUID_SIZE];
    _Static_assert(sizeof desc->uuid == VK_UUID_SIZE, "UUID sizes differ");
    _Static_assert(sizeof desc->luid == VK_LUID_SIZE, "LUID sizes differ");
    desc->has_uuid = memcmp(p->id.deviceUUID, zero, VK_UUID_SIZE) != 0;
    memcpy(desc->uuid, desc->has_uuid ? p->id.deviceUUID : zero, VK_UUID_SIZE);
    desc->has_luid = p->id.deviceLUIDValid == VK_TRUE;
    if (desc->has_luid)
        memcpy(desc->luid, p->id.deviceLUID, VK_LUID_SIZE);
    desc->has_pci_bus = p->has_pci_bus;
    desc->pci_domain = p->pci_bus.pciDomain;
    desc->pci_bus = p->pci_bus.pciBus;
    desc->pci_device = p->pci_bus.pciDevice;
    desc->pci_function = p->pci_bus.pciFunction;
}

/* Without opening the device: its shape, which the first gemm_f16 on it checks
 * (vulkan_coopmat_check.c rewrites the text then), or why there is none. */
static void describe_matrix_engine(const tdm_backend *be, VkPhysicalDevice physical,
                                   tdm_device_desc *desc)
{
    tdm_vk_coopmat cm;
    char shape[TDM_DEVICE_NAME_MAX];
    if (!tdm_vk_coopmat_probe(be, physical, &cm, desc->matrix_engine, sizeof desc->matrix_engine))
        return;
    tdm_vk_coopmat_describe(&cm, shape, sizeof shape);
    snprintf(desc->matrix_engine, sizeof desc->matrix_engine,
             "available: %.200s, checked at first use", shape);
}

void tdm_vk_describe(const tdm_backend *be, size_t index, tdm_device_desc *desc)
{
    VkPhysicalDevice physical = be->physical[index];
    device_properties p;
    query_properties(be, physical, &p);
    desc->backend = TDM_BACKEND_VULKAN;
    snprintf(desc->name, sizeof desc->name, "%s", p.base.properties.deviceName);
    describe_vendor(p.base.properties.vendorID, desc->vendor, sizeof desc->vendor);
    desc->vendor_id = p.base.properties.vendorID;
    describe_driver(&p, desc->driver, sizeof desc->driver);
    desc->type = describe_type(tdm_vk_device_type(physical));
    describe_memory(physical, &p, desc);
    desc->compute_units = describe_compute_units(&p);
    describe_ids(&p, desc);
    snprintf(desc->gemm, sizeof desc->gemm, "tandem's shader");
    describe_matrix_engine(be, physical, desc);
}
