/* tdm_context_default_devices, the devices a strategy uses when none are named:
 * each piece of hardware once, GPUs else one CPU driver's devices, else the
 * reference. Runs with PoCL x2 and lavapipe (argument "cpus"), or with two copies of
 * lavapipe's ICD, which are one piece of hardware seen twice ("two-icds"), or on
 * described machines that this one is not: cards seen through two APIs, integrated
 * GPUs, simulators ("machines"). */
#include "device/device_impl.h"
#include "device/device_verdicts.h"
#include "harness.h"

static tdm_device_desc describe(tdm_device *dev)
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(dev, &d));
    return d;
}

static size_t default_devices(tdm_context *ctx, tdm_device **out)
{
    size_t n = 0;
    CHECK_OK(tdm_context_default_devices(ctx, out, 8, &n));
    return n;
}

/* PoCL and lavapipe run on the same cores: the default takes PoCL's devices alone,
 * and the default mirrored strategy the same. */
static void check_one_cpu_driver(void)
{
    tdm_context *ctx = test_context(TDM_BACKENDS_ALL);
    tdm_device *opencl[8], *vulkan[8], *chosen[8];
    size_t n_opencl = test_devices_of(ctx, TDM_BACKEND_OPENCL, opencl, 8);
    CHECK(n_opencl == 2 && test_devices_of(ctx, TDM_BACKEND_VULKAN, vulkan, 8) == 1);
    size_t n = default_devices(ctx, chosen);
    CHECK(n == n_opencl);
    for (size_t i = 0; i < n && i < n_opencl; i++)
        CHECK(chosen[i] == opencl[i]);
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, NULL, 0, NULL, &s));
    CHECK(tdm_strategy_num_replicas(s) == n);
    tdm_strategy_destroy(s);

    /* Fewer slots than devices: the count is still the whole choice. */
    tdm_device *first = NULL;
    CHECK_OK(tdm_context_default_devices(ctx, &first, 1, &n));
    CHECK(n == n_opencl && first == opencl[0]);
    CHECK_OK(tdm_context_default_devices(ctx, NULL, 0, &n));
    CHECK(n == n_opencl);
    CHECK_FAILS(tdm_context_default_devices(ctx, NULL, 2, &n), TDM_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_FAILS(tdm_context_default_devices(NULL, chosen, 2, &n), TDM_ERR_INVALID_ARGUMENT,
                "'ctx'");
    tdm_context_destroy(ctx);

    /* Without OpenCL, lavapipe is the CPU driver. */
    ctx =
        test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE) | TDM_BACKEND_BIT(TDM_BACKEND_VULKAN));
    CHECK(default_devices(ctx, chosen) == 1 && describe(chosen[0]).backend == TDM_BACKEND_VULKAN);
    tdm_context_destroy(ctx);
}

/* Two copies of one ICD: two physical devices, one piece of hardware, used once;
 * the mirrored default takes it without the "same hardware" error. */
static void check_same_hardware_once(void)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_VULKAN));
    tdm_device *vulkan[8], *chosen[8];
    CHECK(test_devices_of(ctx, TDM_BACKEND_VULKAN, vulkan, 8) == 2);
    CHECK(describe(vulkan[1]).same_hardware_as == (int)tdm_device_index(vulkan[0]));
    CHECK(default_devices(ctx, chosen) == 1 && chosen[0] == vulkan[0]);
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(ctx, NULL, 0, NULL, &s));
    CHECK(s && tdm_strategy_num_replicas(s) == 1);
    tdm_strategy_destroy(s);

    /* A card seen through OpenCL and Vulkan: made so by relabelling the second copy,
     * which then ranks first as the OpenCL view of the card. */
    vulkan[1]->desc.backend = TDM_BACKEND_OPENCL;
    CHECK(default_devices(ctx, chosen) == 1 && chosen[0] == vulkan[1]);
    vulkan[1]->desc.backend = TDM_BACKEND_VULKAN;

    /* Which pairs one strategy may not take: the two copies, a parent and its logical
     * device, a logical device and the card's other copy; two logical siblings may. */
    tdm_device *logical[2];
    CHECK_OK(tdm_device_split(vulkan[0], 2, logical));
    CHECK(tdm_device_same_hardware(vulkan[0], vulkan[1]) == 1);
    CHECK(tdm_device_same_hardware(logical[0], vulkan[0]) == 1);
    CHECK(tdm_device_same_hardware(vulkan[1], logical[1]) == 1);
    CHECK(tdm_device_same_hardware(logical[0], logical[1]) == 0);
    CHECK(tdm_device_same_hardware(logical[0], NULL) == 0);
    tdm_context_destroy(ctx);
}

/* Nothing but the reference backend: the reference device. */
static void check_reference_alone(void)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *chosen[8];
    CHECK(default_devices(ctx, chosen) == 1 &&
          describe(chosen[0]).backend == TDM_BACKEND_REFERENCE);
    tdm_context_destroy(ctx);
}

/* One device of a described machine: what the choice reads of it. */
typedef struct {
    const char *id;
    tdm_backend_kind backend;
    tdm_device_type type;
    const char *driver;
    int uuid; /* 0: none; else the UUID's first byte */
    int pci;  /* 0: none; else the bus number */
    int luid; /* 0: none; else the LUID's first byte */
    int simulator, incomplete, lost, parent;
    tdm_device_choice want;
} described;

#define OPENCL TDM_BACKEND_OPENCL
#define VULKAN TDM_BACKEND_VULKAN
#define GPU TDM_DEVICE_GPU
#define IGPU TDM_DEVICE_INTEGRATED_GPU
#define CPU TDM_DEVICE_CPU
#define REFERENCE                                                                                  \
    {                                                                                              \
        "reference:0", TDM_BACKEND_REFERENCE, CPU, "ref", .parent = -1,                            \
                                                          .want = TDM_CHOICE_REFERENCE             \
    }

static tdm_device_desc desc_of(const described *d)
{
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    snprintf(desc.id, sizeof desc.id, "%s", d->id);
    snprintf(desc.driver, sizeof desc.driver, "%s", d->driver);
    desc.backend = d->backend;
    desc.type = d->type;
    desc.has_uuid = d->uuid != 0;
    desc.uuid[0] = (uint8_t)d->uuid;
    desc.has_pci_bus = d->pci != 0;
    desc.pci_bus = (uint32_t)d->pci;
    desc.has_luid = d->luid != 0;
    desc.luid[0] = (uint8_t)d->luid;
    desc.simulator = d->simulator;
    desc.same_hardware_as = -1;
    desc.parent = d->parent;
    return desc;
}

/* Marks the same hardware, chooses, and checks each verdict against the wanted one. */
static void check_machine(const char *name, const described *devs, size_t n)
{
    tdm_device_desc descs[16], *ptrs[16];
    tdm_choice_candidate in[16];
    tdm_device_choice got[16];
    for (size_t i = 0; i < n; i++) {
        descs[i] = desc_of(&devs[i]);
        ptrs[i] = &descs[i];
        in[i] = (tdm_choice_candidate){&descs[i], !devs[i].incomplete, devs[i].lost};
    }
    tdm_mark_same_hardware(ptrs, n);
    tdm_choose_default_devices(in, n, got);
    for (size_t i = 0; i < n; i++)
        if (got[i] != devs[i].want) {
            CHECK(got[i] == devs[i].want);
            fprintf(stderr, "  %s, %s: '%s', want '%s'\n", name, devs[i].id,
                    tdm_device_choice_description(got[i]),
                    tdm_device_choice_description(devs[i].want));
        }
}

#define CHECK_MACHINE(name, ...)                                                                   \
    do {                                                                                           \
        const described devs[] = {__VA_ARGS__};                                                    \
        check_machine(name, devs, sizeof devs / sizeof devs[0]);                                   \
    } while (0)

/* Machines this one is not, described: which devices the default uses and why it
 * leaves each other one out. */
static void check_machines(void)
{
    /* A desktop: a discrete card and an integrated GPU, each seen through OpenCL and
     * Vulkan with UUIDs that differ between the two stacks but one PCI address; two
     * CPU drivers; a simulator. The card is used once, through OpenCL. */
    CHECK_MACHINE(
        "desktop", REFERENCE,
        {"opencl:0", OPENCL, GPU, "nv", 0x10, 1, .parent = -1, .want = TDM_CHOICE_USED},
        {"opencl:1", OPENCL, IGPU, "intel", 0x20, 2, .parent = -1,
         .want = TDM_CHOICE_INTEGRATED_BESIDE_DISCRETE},
        {"opencl:2", OPENCL, CPU, "pocl", .parent = -1, .want = TDM_CHOICE_CPU_BESIDE_GPU},
        {"opencl:3", OPENCL, GPU, "oclgrind", .simulator = 1, .parent = -1,
         .want = TDM_CHOICE_SIMULATOR},
        {"vulkan:0", VULKAN, GPU, "nv", 0x11, 1, .parent = -1, .want = TDM_CHOICE_SAME_HARDWARE},
        {"vulkan:1", VULKAN, IGPU, "mesa", 0x21, 2, .parent = -1, .want = TDM_CHOICE_SAME_HARDWARE},
        {"vulkan:2", VULKAN, CPU, "lvp", .parent = -1, .want = TDM_CHOICE_CPU_BESIDE_GPU},
        {"opencl:0/0", OPENCL, GPU, "nv", .parent = 1, .want = TDM_CHOICE_LOGICAL});
    /* Two cards of two vendors: both; OpenCL without CLBlast loses to Vulkan. */
    CHECK_MACHINE(
        "two vendors", REFERENCE,
        {"opencl:0", OPENCL, GPU, "amd", 0x30, 3, .incomplete = 1, .parent = -1,
         .want = TDM_CHOICE_SAME_HARDWARE},
        {"opencl:1", OPENCL, GPU, "nv", 0x10, 1, .parent = -1, .want = TDM_CHOICE_USED},
        {"vulkan:0", VULKAN, GPU, "radv", 0x31, 3, .parent = -1, .want = TDM_CHOICE_USED},
        {"vulkan:1", VULKAN, GPU, "nv", 0x10, .parent = -1, .want = TDM_CHOICE_SAME_HARDWARE});
    /* Windows-like: no PCI address, the LUID finds the same adapter; two cards with
     * nothing in common are two. */
    CHECK_MACHINE(
        "luid", REFERENCE,
        {"opencl:0", OPENCL, GPU, "a", 0x40, .luid = 7, .parent = -1, .want = TDM_CHOICE_USED},
        {"opencl:1", OPENCL, GPU, "a", 0x50, .parent = -1, .want = TDM_CHOICE_USED},
        {"vulkan:0", VULKAN, GPU, "a", 0x41, .luid = 7, .parent = -1,
         .want = TDM_CHOICE_SAME_HARDWARE},
        {"vulkan:1", VULKAN, GPU, "a", 0x51, .parent = -1, .want = TDM_CHOICE_USED});
    /* A laptop: the integrated GPU when it is the only GPU; a lost card is left out. */
    CHECK_MACHINE(
        "laptop", REFERENCE,
        {"opencl:0", OPENCL, GPU, "nv", 0x10, 1, .lost = 1, .parent = -1, .want = TDM_CHOICE_LOST},
        {"vulkan:0", VULKAN, IGPU, "intel", 0x20, 2, .parent = -1, .want = TDM_CHOICE_USED},
        {"vulkan:1", VULKAN, CPU, "lvp", .parent = -1, .want = TDM_CHOICE_CPU_BESIDE_GPU});
    /* A simulator beside a CPU driver: the CPU (real hardware); alone, the simulator. */
    CHECK_MACHINE(
        "simulator and cpu", REFERENCE,
        {"opencl:0", OPENCL, GPU, "oclgrind", .simulator = 1, .parent = -1,
         .want = TDM_CHOICE_SIMULATOR},
        {"opencl:1", OPENCL, CPU, "pocl", .parent = -1, .want = TDM_CHOICE_USED},
        {"opencl:2", OPENCL, CPU, "pocl", .parent = -1, .want = TDM_CHOICE_USED},
        {"vulkan:0", VULKAN, CPU, "lvp", .parent = -1, .want = TDM_CHOICE_OTHER_CPU_DRIVER});
    CHECK_MACHINE("simulator alone", REFERENCE,
                  {"opencl:0", OPENCL, GPU, "oclgrind", .simulator = 1, .parent = -1,
                   .want = TDM_CHOICE_USED});
    /* Nothing but the reference. */
    const described alone[] = {
        {"reference:0", TDM_BACKEND_REFERENCE, CPU, "ref", .parent = -1, .want = TDM_CHOICE_USED}};
    check_machine("reference alone", alone, 1);

    /* The phrases come from the one list; an unknown value is said so. */
    CHECK(!strcmp(tdm_device_choice_description(TDM_CHOICE_USED), "used"));
    CHECK(!strcmp(tdm_device_choice_description((tdm_device_choice)99), "unknown choice"));
}

/* tdm_context_default_choice agrees with tdm_context_default_devices on this
 * machine's drivers, and checks its arguments. */
static void check_choice_calls(void)
{
    tdm_context *ctx = test_context(TDM_BACKENDS_ALL);
    tdm_device *chosen[8];
    size_t n = default_devices(ctx, chosen), used = 0;
    for (size_t i = 0; i < tdm_context_device_count(ctx); i++) {
        tdm_device *dev = NULL;
        tdm_device_choice choice = TDM_CHOICE_LOST;
        CHECK_OK(tdm_context_device(ctx, i, &dev));
        CHECK_OK(tdm_context_default_choice(ctx, dev, &choice));
        int listed = 0;
        for (size_t j = 0; j < n; j++)
            listed |= chosen[j] == dev;
        CHECK(listed == (choice == TDM_CHOICE_USED));
        used += choice == TDM_CHOICE_USED;
    }
    CHECK(used == n);
    tdm_device_choice choice;
    CHECK_FAILS(tdm_context_default_choice(ctx, NULL, &choice), TDM_ERR_INVALID_ARGUMENT, "'dev'");
    tdm_context *other = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *foreign = NULL;
    CHECK_OK(tdm_context_device(other, 0, &foreign));
    CHECK_FAILS(tdm_context_default_choice(ctx, foreign, &choice), TDM_ERR_INVALID_ARGUMENT,
                "another context");
    tdm_context_destroy(other);
    tdm_context_destroy(ctx);
}

void test_case_device_choice(const test_run *run)
{
    if (!strcmp(run->argv[0], "cpus")) {
        check_one_cpu_driver();
        check_reference_alone();
        check_choice_calls();
    } else if (!strcmp(run->argv[0], "machines")) {
        check_machines();
    } else { /* two-icds */
        check_same_hardware_once();
    }
}
