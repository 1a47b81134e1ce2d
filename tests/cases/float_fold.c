/* The host's float16 fold against the reference conversions: the branch-free value
 * of every half, and the rounding of sums of every half with many others, edge
 * values among them, bit for bit; then a fold of words through tdm_fold_floats, and
 * the vector paths of the fold and the scaling against the scalar ones. */
#include <stdlib.h>

#include "collective/float_fold.h"
#include "harness.h"

static uint32_t bits_of(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static void check_values(void)
{
    size_t wrong = 0;
    for (uint32_t h = 0; h <= 0xffffu; h++)
        wrong +=
            bits_of(tdm_fold_half_value((uint16_t)h)) != bits_of(tdm_f32_from_f16((uint16_t)h));
    CHECK(wrong == 0);
}

/* Every half plus each partner: zeros, the smallest and largest subnormals, the
 * smallest normal, the largest half, infinities, a NaN, and random halves. */
static void check_sums(void)
{
    uint16_t partners[64] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x83ff,
                             0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e01, 0x3c00, 0x0401};
    test_random_bytes(partners + 14, sizeof partners - 14 * sizeof partners[0], 11);
    size_t wrong = 0;
    for (uint32_t h = 0; h <= 0xffffu; h++)
        for (size_t p = 0; p < sizeof partners / sizeof partners[0]; p++) {
            float sum = tdm_f32_from_f16((uint16_t)h) + tdm_f32_from_f16(partners[p]);
            uint16_t got = tdm_fold_half_of_sum(sum), want = tdm_f16_from_f32(sum);
            if (got != want && wrong++ < 5)
                fprintf(stderr, "0x%04x + 0x%04x: 0x%04x, expected 0x%04x\n", h, partners[p], got,
                        want);
        }
    CHECK(wrong == 0);
}

/* Three values of 5 words (10 halves) folded in order through the word interface. */
static void check_fold(void)
{
    uint16_t v[3][10], want[10];
    test_random_bytes(v, sizeof v, 5);
    for (size_t i = 0; i < 10; i++) {
        float s = tdm_f32_from_f16(v[0][i]);
        for (size_t k = 1; k < 3; k++)
            s = tdm_f32_from_f16(tdm_f16_from_f32(s + tdm_f32_from_f16(v[k][i])));
        want[i] = tdm_f16_from_f32(s);
    }
    float acc[5], x[5];
    memcpy(acc, v[0], sizeof acc);
    for (size_t k = 1; k < 3; k++) {
        memcpy(x, v[k], sizeof x);
        tdm_fold_floats(TDM_FOLD_SUM_F16, acc, x, 5, 0);
    }
    CHECK(!memcmp(acc, want, sizeof want));
}

/* tdm_fold_halves and tdm_fold_scale (on x86 with F16C, eight halves at a time, then
 * the rest one by one) against the scalar sums: every half with each partner of
 * check_sums in both orders, and every half scaled by a third, bit for bit; the sums
 * over a count that is no multiple of 8, so that both paths run. */
static void check_fast_paths(void)
{
    enum { halves = 0x10000 };
    uint16_t *every = malloc(halves * sizeof *every), *acc = malloc(halves * sizeof *acc);
    uint16_t *other = malloc(halves * sizeof *other), partners[16];
    CHECK(every && acc && other);
    if (!every || !acc || !other)
        goto out;
    for (uint32_t h = 0; h < halves; h++)
        every[h] = (uint16_t)h;
    uint16_t edges[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0x7c00, 0xfc00, 0x7e01, 0x7d01};
    memcpy(partners, edges, sizeof edges);
    test_random_bytes(partners + 9, sizeof partners - sizeof edges, 12);
    size_t wrong = 0;
    for (size_t p = 0; p < 16; p++)
        for (int x_earlier = 0; x_earlier < 2; x_earlier++) {
            memcpy(acc, every, halves * sizeof *acc);
            for (size_t h = 0; h < halves; h++)
                other[h] = partners[p];
            tdm_fold_halves(acc, other, halves - 3, x_earlier);
            tdm_fold_halves(acc + halves - 3, other, 3, x_earlier);
            for (size_t h = 0; h < halves; h++)
                wrong += acc[h] != (x_earlier ? tdm_fold_half_sum(partners[p], every[h])
                                              : tdm_fold_half_sum(every[h], partners[p]));
        }
    CHECK(wrong == 0);
    memcpy(acc, every, halves * sizeof *acc);
    tdm_fold_scale(TDM_FOLD_SUM_F16, (float *)(void *)acc, halves / 2, 1.0f / 3.0f);
    wrong = 0;
    for (size_t h = 0; h < halves; h++)
        wrong += acc[h] != tdm_f16_from_f32(1.0f / 3.0f * tdm_f32_from_f16(every[h]));
    CHECK(wrong == 0);
#ifdef TDM_FOLD_HAS_F16C_PATH
    fprintf(stderr, "float16 fold: %s\n", tdm_fold_uses_f16c() ? "F16C" : "portable");
#endif
out:
    free(every);
    free(acc);
    free(other);
}

void test_case_float_fold(const test_run *run)
{
    (void)run;
    check_values();
    check_sums();
    check_fold();
    check_fast_paths();
}
