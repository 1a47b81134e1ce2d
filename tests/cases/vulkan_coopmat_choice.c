/* The fragment shape gemm_f16's matrix-engine path takes from a device's
 * VK_KHR_cooperative_matrix properties (vulkan_coopmat.c), on made-up lists shaped
 * like what drivers report: by the properties alone, 16 x 16 x 16 where offered, else
 * the least M * N * K that the shader's tile holds; none from an empty list or one
 * without a subgroup f16 x f16 + f32 entry. */
#include "harness.h"
#include "vulkan_internal.h"

#define F16 VK_COMPONENT_TYPE_FLOAT16_KHR
#define F32 VK_COMPONENT_TYPE_FLOAT32_KHR

static VkCooperativeMatrixPropertiesKHR entry(uint32_t m, uint32_t n, uint32_t k,
                                              VkComponentTypeKHR c, VkScopeKHR scope)
{
    return (VkCooperativeMatrixPropertiesKHR){
        .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR,
        .MSize = m,
        .NSize = n,
        .KSize = k,
        .AType = F16,
        .BType = F16,
        .CType = c,
        .ResultType = c,
        .scope = scope};
}

#define SUB VK_SCOPE_SUBGROUP_KHR

/* The index chosen and, where one is, its shape. */
static void expect(const VkCooperativeMatrixPropertiesKHR *props, size_t count, int index,
                   uint32_t m, uint32_t n, uint32_t k)
{
    tdm_vk_coopmat_shape shape = {0, 0, 0};
    int got = tdm_vk_coopmat_choose(props, count, &shape);
    if (got != index)
        fprintf(stderr, "chose entry %d of %zu, want %d\n", got, count, index);
    CHECK(got == index);
    if (index >= 0)
        CHECK(shape.m == m && shape.n == n && shape.k == k);
    else
        CHECK(shape.m == 0 && shape.n == 0 && shape.k == 0);
}

void test_case_vulkan_coopmat_choice(const test_run *run)
{
    (void)run;
    /* NVIDIA-like: 16x8x16, 16x8x8 and 16x16x16 of each accumulator type. */
    const VkCooperativeMatrixPropertiesKHR nvidia[] = {
        entry(16, 8, 16, F16, SUB), entry(16, 8, 8, F16, SUB), entry(16, 16, 16, F16, SUB),
        entry(16, 8, 16, F32, SUB), entry(16, 8, 8, F32, SUB), entry(16, 16, 16, F32, SUB)};
    expect(nvidia, 6, 5, 16, 16, 16);
    /* AMD RDNA3-like: 16x16x16 only, f16 and f32 sums. */
    const VkCooperativeMatrixPropertiesKHR amd[] = {entry(16, 16, 16, F16, SUB),
                                                    entry(16, 16, 16, F32, SUB)};
    expect(amd, 2, 1, 16, 16, 16);
    /* Intel-like: 8x16x16 only. */
    const VkCooperativeMatrixPropertiesKHR intel[] = {entry(8, 16, 16, F32, SUB)};
    expect(intel, 1, 0, 8, 16, 16);
    /* No 16x16x16: the least M * N * K, the first of equals. */
    const VkCooperativeMatrixPropertiesKHR other[] = {
        entry(32, 8, 16, F32, SUB), entry(16, 8, 8, F32, SUB), entry(8, 16, 8, F32, SUB)};
    expect(other, 3, 1, 16, 8, 8);
    /* Nothing that fits: empty; f16 sums only; workgroup scope; saturating; a
     * fragment the 64 x 64 of a subgroup or the 32 of k does not hold. */
    expect(NULL, 0, -1, 0, 0, 0);
    expect(nvidia, 3, -1, 0, 0, 0);
    VkCooperativeMatrixPropertiesKHR unfit[] = {
        entry(16, 16, 16, F32, VK_SCOPE_WORKGROUP_KHR), entry(16, 16, 16, F32, SUB),
        entry(128, 16, 16, F32, SUB), entry(16, 16, 24, F32, SUB), entry(0, 16, 16, F32, SUB)};
    unfit[1].saturatingAccumulation = VK_TRUE;
    expect(unfit, 5, -1, 0, 0, 0);
    /* A and B of another type. */
    VkCooperativeMatrixPropertiesKHR int8 = entry(16, 16, 32, F32, SUB);
    int8.AType = int8.BType = (VkComponentTypeKHR)3; /* SINT8 */
    expect(&int8, 1, -1, 0, 0, 0);
}
