/* The Vulkan backend's barrier choice between two commands of one batch: a memory
 * barrier after a write to an overlapping range, an execution barrier for a write
 * after a read, none for disjoint ranges or reads after reads, and what each
 * barrier clears; overflowing lists only ever add barriers. */
#include "harness.h"
#include "vulkan_internal.h"

/* Two buffer handles; the tracker compares them and never dereferences them. */
#define A ((VkBuffer)(uintptr_t)0x1000)
#define B ((VkBuffer)(uintptr_t)0x2000)

static tdm_vk_access read_of(VkBuffer buffer, VkDeviceSize begin, VkDeviceSize end)
{
    return (tdm_vk_access){buffer, begin, end, 0};
}

static tdm_vk_access write_of(VkBuffer buffer, VkDeviceSize begin, VkDeviceSize end)
{
    return (tdm_vk_access){buffer, begin, end, 1};
}

/* Records one command the way a batch does; returns the barrier it needed. */
static tdm_vk_barrier record(tdm_vk_hazards *h, const tdm_vk_access *access, size_t count)
{
    tdm_vk_barrier barrier = tdm_vk_hazard_barrier(h, access, count);
    tdm_vk_hazard_clear(h, barrier);
    tdm_vk_hazard_add(h, access, count);
    return barrier;
}

static tdm_vk_barrier record1(tdm_vk_hazards *h, tdm_vk_access access)
{
    return record(h, &access, 1);
}

static void check_pairs(void)
{
    tdm_vk_hazards h = {0};
    CHECK(record1(&h, write_of(A, 0, 64)) == TDM_VK_BARRIER_NONE);
    CHECK(record1(&h, read_of(A, 60, 80)) == TDM_VK_BARRIER_MEMORY);      /* read after write */
    CHECK(record1(&h, write_of(A, 64, 128)) == TDM_VK_BARRIER_EXECUTION); /* after read */
    CHECK(record1(&h, write_of(A, 64, 128)) == TDM_VK_BARRIER_MEMORY);    /* after write */
    CHECK(record1(&h, write_of(A, 128, 192)) == TDM_VK_BARRIER_NONE);     /* touching only */
    CHECK(record1(&h, write_of(B, 0, 192)) == TDM_VK_BARRIER_NONE);       /* another buffer */
    CHECK(record1(&h, read_of(A, 192, 256)) == TDM_VK_BARRIER_NONE);
    CHECK(record1(&h, read_of(A, 192, 256)) == TDM_VK_BARRIER_NONE); /* reads share */
}

/* An execution barrier leaves earlier writes unsynchronised; a memory barrier
 * covers everything before it. */
static void check_clearing(void)
{
    tdm_vk_hazards h = {0};
    record1(&h, write_of(A, 0, 64));
    record1(&h, read_of(B, 0, 64));
    CHECK(record1(&h, write_of(B, 0, 64)) == TDM_VK_BARRIER_EXECUTION);
    CHECK(record1(&h, read_of(A, 0, 4)) == TDM_VK_BARRIER_MEMORY);
    CHECK(record1(&h, write_of(B, 0, 64)) == TDM_VK_BARRIER_NONE);
    CHECK(record1(&h, read_of(A, 0, 64)) == TDM_VK_BARRIER_NONE);
}

/* A command with several accesses takes the strongest barrier any of them needs. */
static void check_command(void)
{
    tdm_vk_hazards h = {0};
    record1(&h, read_of(A, 0, 64));
    const tdm_vk_access copy[2] = {read_of(B, 0, 64), write_of(A, 32, 48)};
    CHECK(record(&h, copy, 2) == TDM_VK_BARRIER_EXECUTION);
    const tdm_vk_access launch[3] = {read_of(B, 0, 64), write_of(B, 100, 200), read_of(A, 40, 41)};
    CHECK(record(&h, launch, 3) == TDM_VK_BARRIER_MEMORY);
}

/* Past TDM_VK_TRACKED_RANGES ranges the lists widen or overflow, never forget. */
static void check_overflow(void)
{
    tdm_vk_hazards h = {0};
    for (VkDeviceSize i = 0; i < 2 * TDM_VK_TRACKED_RANGES; i++)
        CHECK(record1(&h, write_of(A, 100 * i, 100 * i + 10)) == TDM_VK_BARRIER_NONE);
    for (VkDeviceSize i = 0; i < 2 * TDM_VK_TRACKED_RANGES; i++) {
        tdm_vk_hazards copy = h;
        CHECK(tdm_vk_hazard_barrier(&copy, &(tdm_vk_access){A, 100 * i + 5, 100 * i + 6, 0}, 1) ==
              TDM_VK_BARRIER_MEMORY);
    }
    for (uintptr_t i = 1; i <= TDM_VK_TRACKED_RANGES; i++) /* other buffers: overflow */
        record1(&h, read_of((VkBuffer)(0x10000 * i), 0, 4));
    record1(&h, write_of((VkBuffer)(uintptr_t)0x999000, 0, 4));
    CHECK(h.written.overflow);
    CHECK(record1(&h, read_of((VkBuffer)(uintptr_t)0x777000, 0, 4)) == TDM_VK_BARRIER_MEMORY);
    CHECK(!h.written.overflow && h.written.count == 0);
}

void test_case_vulkan_hazards(const test_run *run)
{
    (void)run;
    check_pairs();
    check_clearing();
    check_command();
    check_overflow();
}
