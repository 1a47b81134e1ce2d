/* float16 tensors on every device of a scenario: tdm_op_cast rounds to nearest even,
 * overflows to infinity and converts back exactly, and tdm_op_matmul multiplies f16
 * operands with f32 sums, against a double-precision product of the same halves on
 * the host, a long, narrow product too (split over k on OpenCL); mismatched dtypes
 * and odd f16 offsets are refused. Then the other casts and lookups that take no f32
 * arithmetic: f32 to i32 truncated, INT32_MIN outside int32's range; embedding rows
 * gathered bit for bit, and their gradient summed in the ids' order, bitwise as a host
 * loop, over more rows than one launch may loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tandem/tandem.h"

/* f32 inputs and the half each rounds to (Python's struct 'e' format gives them). */
static const struct {
    float value;
    uint16_t half;
} casts[] = {
    {0.0f, 0x0000},       {-0.0f, 0x8000},    {1.0f, 0x3c00},       {-2.5f, 0xc100},
    {1.0f / 3, 0x3555},   {65504.0f, 0x7bff}, {65519.0f, 0x7bff},   {65520.0f, 0x7c00},
    {-1e6f, 0xfc00},      {INFINITY, 0x7c00}, {1e-8f, 0x0000},      {6e-8f, 0x0001},
    {1e-3f, 0x1419},      {3.14159f, 0x4248}, {0x1.8p-24f, 0x0002}, /* a tie: to even */
    {0x1.4p-23f, 0x0002}, /* 2.5 times the smallest half, a tie: to even */
};
#define CASTS (sizeof casts / sizeof casts[0])

/* The value of half bits h, exactly. */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

static void check_cast(tdm_device *dev)
{
    float in[CASTS + 1], back[CASTS + 1];
    uint16_t got[CASTS + 1];
    for (size_t i = 0; i < CASTS; i++)
        in[i] = casts[i].value;
    in[CASTS] = NAN;
    tdm_tensor *x = NULL, *h = NULL, *y = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(CASTS + 1), &x));
    CHECK_OK(tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(CASTS + 1), &h));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(CASTS + 1), &y));
    CHECK(tdm_tensor_bytes(h) == 2 * (CASTS + 1) && !strcmp(tdm_dtype_name(TDM_F16), "f16"));
    CHECK_OK(tdm_tensor_write(x, in, sizeof in));
    CHECK_OK(tdm_op_cast(h, x));
    CHECK_OK(tdm_op_cast(y, h));
    CHECK_OK(tdm_tensor_read(h, got, sizeof got));
    CHECK_OK(tdm_tensor_read(y, back, sizeof back));
    for (size_t i = 0; i < CASTS; i++) {
        if (got[i] != casts[i].half || (double)back[i] != half_value(casts[i].half))
            fprintf(stderr, "cast %a: half %#06x (want %#06x), back %a\n", (double)in[i], got[i],
                    casts[i].half, (double)back[i]);
        CHECK(got[i] == casts[i].half);
        CHECK((double)back[i] == half_value(casts[i].half));
    }
    CHECK((got[CASTS] & 0x7c00) == 0x7c00 && (got[CASTS] & 0x3ff) && isnan(back[CASTS]));

    tdm_tensor *odd = NULL;
    CHECK_OK(tdm_tensor_slice(h, 1, &TDM_SHAPE(4), &odd));
    tdm_tensor *four = NULL;
    CHECK_OK(tdm_tensor_slice(x, 0, &TDM_SHAPE(4), &four));
    CHECK_FAILS(tdm_op_cast(odd, four), TDM_ERR_INVALID_ARGUMENT, "multiple of 4");
    CHECK_FAILS(tdm_op_cast(y, x), TDM_ERR_INVALID_ARGUMENT, "'x' must be f16");
    CHECK_FAILS(tdm_op_cast(h, h), TDM_ERR_INVALID_ARGUMENT, "'x' must be f32");
    CHECK_FAILS(tdm_op_cast(h, four), TDM_ERR_INVALID_ARGUMENT, "elements");
    tdm_tensor_destroy(four);
    tdm_tensor_destroy(odd);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(h);
    tdm_tensor_destroy(x);
}

/* f32 to i32: truncation toward zero inside (-2^31, 2^31), INT32_MIN elsewhere. */
static void check_cast_int(tdm_device *dev)
{
    static const struct {
        float value;
        int32_t want;
    } ints[] = {
        {0.0f, 0},
        {-0.0f, 0},
        {2.9f, 2},
        {-2.9f, -2},
        {-0.5f, 0},
        {0.5f, 0},
        {1e-40f, 0},
        {123456.75f, 123456},
        {0x1.fffffep30f, 2147483520}, /* the largest float below 2^31 */
        {-0x1.fffffep30f, -2147483520},
        {0x1p31f, INT32_MIN},
        {-0x1p31f, INT32_MIN},
        {1e30f, INT32_MIN},
        {-1e30f, INT32_MIN},
        {INFINITY, INT32_MIN},
        {-INFINITY, INT32_MIN},
        {NAN, INT32_MIN},
    };
    enum { COUNT = sizeof ints / sizeof ints[0] };
    float in[COUNT];
    int32_t got[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        in[i] = ints[i].value;
    tdm_tensor *x = NULL, *y = NULL, *h = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(COUNT), &x));
    CHECK_OK(tdm_tensor_create(dev, TDM_I32, &TDM_SHAPE(COUNT), &y));
    CHECK_OK(tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(COUNT), &h));
    CHECK_OK(tdm_tensor_write(x, in, sizeof in));
    CHECK_OK(tdm_op_cast(y, x));
    CHECK_OK(tdm_tensor_read(y, got, sizeof got));
    for (size_t i = 0; i < COUNT; i++) {
        if (got[i] != ints[i].want)
            fprintf(stderr, "cast %a to i32: %d, want %d\n", (double)in[i], got[i], ints[i].want);
        CHECK(got[i] == ints[i].want);
    }
    CHECK_FAILS(tdm_op_cast(y, y), TDM_ERR_INVALID_ARGUMENT, "'x' must be f32, it is i32");
    CHECK_FAILS(tdm_op_cast(y, h), TDM_ERR_INVALID_ARGUMENT, "'x' must be f32, it is f16");
    tdm_tensor *fewer = NULL;
    CHECK_OK(tdm_tensor_slice(x, 0, &TDM_SHAPE(4), &fewer));
    CHECK_FAILS(tdm_op_cast(y, fewer), TDM_ERR_INVALID_ARGUMENT, "'x' has 4 elements");
    tdm_tensor_destroy(fewer);
    tdm_tensor_destroy(h);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(x);
}

/* Rows of a [5, 3] table by ids of any shape, bit for bit (-0 and a NaN's payload
 * too); an id past the table or negative gives zeros. Then the refusals. */
static void check_embedding_lookup(tdm_device *dev)
{
    enum { VOCAB = 5, DIM = 3, N = 6 };
    static const int32_t ids[N] = {4, 0, -1, 5, 2, 4};
    uint32_t table[VOCAB * DIM], want[N * DIM], got[N * DIM];
    for (size_t i = 0; i < VOCAB * DIM; i++) {
        float v = (float)i * 1.25f - 7.0f;
        memcpy(&table[i], &v, sizeof v);
    }
    table[1 * DIM + 2] = 0x80000000u; /* -0 */
    table[2 * DIM + 0] = 0x7fc01234u; /* a NaN with a payload */
    for (size_t i = 0; i < N; i++)
        for (size_t c = 0; c < DIM; c++)
            want[i * DIM + c] = ids[i] >= 0 && ids[i] < VOCAB ? table[ids[i] * DIM + c] : 0u;
    tdm_tensor *t = NULL, *id = NULL, *y = NULL, *flat = NULL, *wide = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(VOCAB, DIM), &t));
    CHECK_OK(tdm_tensor_create(dev, TDM_I32, &TDM_SHAPE(2, 3), &id));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(N, DIM), &y));
    CHECK_OK(tdm_tensor_write(t, table, sizeof table));
    CHECK_OK(tdm_tensor_write(id, ids, sizeof ids));
    CHECK_OK(tdm_op_embedding_lookup(y, t, id));
    CHECK_OK(tdm_tensor_read(y, got, sizeof got));
    CHECK(memcmp(got, want, sizeof want) == 0);

    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(VOCAB * DIM), &flat));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(N, DIM + 1), &wide));
    CHECK_FAILS(tdm_op_embedding_lookup(wide, t, id), TDM_ERR_INVALID_ARGUMENT,
                "'y' has shape [6, 4], expected a 6 x 3 matrix");
    CHECK_FAILS(tdm_op_embedding_lookup(y, flat, id), TDM_ERR_INVALID_ARGUMENT,
                "'table' has shape [15], expected a matrix [vocab, dim]");
    CHECK_FAILS(tdm_op_embedding_lookup(y, t, y), TDM_ERR_INVALID_ARGUMENT,
                "'ids' must be i32, it is f32");
    CHECK_FAILS(tdm_op_embedding_lookup(y, id, id), TDM_ERR_INVALID_ARGUMENT,
                "'table' must be f32, it is i32");
    CHECK_FAILS(tdm_op_embedding_lookup(NULL, t, id), TDM_ERR_INVALID_ARGUMENT,
                "argument 'y' is NULL");
    tdm_tensor_destroy(wide);
    tdm_tensor_destroy(flat);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(id);
    tdm_tensor_destroy(t);
}

/* The embedding gradient of n ids into [vocab, dim] over dtable filled with garbage
 * first (it is overwritten), bitwise against the host's sums in the ids' order. */
static void check_grad_of(tdm_device *dev, const int32_t *ids, const float *dy, size_t n,
                          size_t vocab, size_t dim)
{
    float *want = calloc(vocab * dim, sizeof *want), *got = malloc(vocab * dim * sizeof *got);
    CHECK(want && got);
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; ids[i] >= 0 && (size_t)ids[i] < vocab && c < dim; c++)
            want[(size_t)ids[i] * dim + c] += dy[i * dim + c];
    tdm_tensor *dt = NULL, *d = NULL, *id = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(vocab, dim), &dt));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n, dim), &d));
    CHECK_OK(tdm_tensor_create(dev, TDM_I32, &TDM_SHAPE(n), &id));
    for (size_t i = 0; i < vocab * dim; i++)
        got[i] = 99.0f;
    CHECK_OK(tdm_tensor_write(dt, got, vocab * dim * sizeof *got));
    CHECK_OK(tdm_tensor_write(d, dy, n * dim * sizeof *dy));
    CHECK_OK(tdm_tensor_write(id, ids, n * sizeof *ids));
    CHECK_OK(tdm_op_embedding_grad(dt, d, id));
    CHECK_OK(tdm_tensor_read(dt, got, vocab * dim * sizeof *got));
    size_t differ = 0;
    for (size_t i = 0; i < vocab * dim; i++)
        differ += memcmp(&got[i], &want[i], sizeof *got) != 0;
    if (differ)
        fprintf(stderr, "embedding grad of %zu ids: %zu of %zu elements differ\n", n, differ,
                vocab * dim);
    CHECK(differ == 0);
    tdm_tensor_destroy(id);
    tdm_tensor_destroy(d);
    tdm_tensor_destroy(dt);
    free(got);
    free(want);
}

/* Repeated ids whose float sums depend on the order (1e8 + 1 - 1e8 + 1 is 1 in order,
 * 0 in reverse), ids outside the table, no ids at all; then 70001 ids, more rows than
 * lavapipe's loops run: the core launches them in pieces. */
static void check_embedding_grad(tdm_device *dev)
{
    static const int32_t ids[] = {2, 0, 2, 7, -3, 2, 0, 3, 2};
    static const float dy[9][3] = {{1e8f, 1, 2},   {0.5f, 3, -1}, {1, 1e-8f, 4},
                                   {5, 6, 7},      {8, 9, 10},    {-1e8f, 3, 1e8f},
                                   {2, -2, 0.25f}, {1, 1, 1},     {1, 1e8f, -1e8f}};
    check_grad_of(dev, ids, (const float *)dy, 9, 4, 3);
    check_grad_of(dev, ids, (const float *)dy, 0, 4, 3);
    enum { LONG = 70001, VOCAB = 3, DIM = 2 };
    int32_t *many = malloc(LONG * sizeof *many);
    float *terms = malloc(LONG * DIM * sizeof *terms);
    CHECK(many && terms);
    for (size_t i = 0; i < LONG; i++)
        many[i] = (int32_t)(i * 7 % (VOCAB + 1)) - (i % 5 == 0); /* -1 and 3 miss */
    for (size_t i = 0; i < LONG * DIM; i++)
        terms[i] = ldexpf((float)((long)(i * 7919 % 1999) - 999), (int)(i % 23) - 11);
    check_grad_of(dev, many, terms, LONG, VOCAB, DIM);
    free(terms);
    free(many);

    tdm_tensor *dt = NULL, *d = NULL, *id = NULL, *cube = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(4, 3), &dt));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(9, 2), &d));
    CHECK_OK(tdm_tensor_create(dev, TDM_I32, &TDM_SHAPE(9), &id));
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(2, 2, 3), &cube));
    CHECK_FAILS(tdm_op_embedding_grad(dt, d, id), TDM_ERR_INVALID_ARGUMENT,
                "'dy' has shape [9, 2], expected a 9 x 3 matrix");
    CHECK_FAILS(tdm_op_embedding_grad(cube, d, id), TDM_ERR_INVALID_ARGUMENT,
                "'dtable' has shape [2, 2, 3], expected a matrix [vocab, dim]");
    CHECK_FAILS(tdm_op_embedding_grad(dt, d, d), TDM_ERR_INVALID_ARGUMENT,
                "'ids' must be i32, it is f32");
    CHECK_FAILS(tdm_op_embedding_grad(id, d, id), TDM_ERR_INVALID_ARGUMENT,
                "'dtable' must be f32, it is i32");
    CHECK_FAILS(tdm_op_embedding_grad(dt, NULL, id), TDM_ERR_INVALID_ARGUMENT,
                "argument 'dy' is NULL");
    tdm_tensor_destroy(cube);
    tdm_tensor_destroy(id);
    tdm_tensor_destroy(d);
    tdm_tensor_destroy(dt);
}

/* Tensors on two devices are refused, naming the one off the output's device. */
static void check_embedding_devices(tdm_device *a, tdm_device *b)
{
    tdm_tensor *y = NULL, *t = NULL, *id = NULL;
    CHECK_OK(tdm_tensor_create(a, TDM_F32, &TDM_SHAPE(2, 3), &y));
    CHECK_OK(tdm_tensor_create(a, TDM_F32, &TDM_SHAPE(4, 3), &t));
    CHECK_OK(tdm_tensor_create(b, TDM_I32, &TDM_SHAPE(2), &id));
    CHECK_FAILS(tdm_op_embedding_lookup(y, t, id), TDM_ERR_INVALID_ARGUMENT,
                "'ids' lies on another device than the output");
    CHECK_FAILS(tdm_op_embedding_grad(t, y, id), TDM_ERR_INVALID_ARGUMENT,
                "'ids' lies on another device than the output");
    tdm_tensor_destroy(id);
    tdm_tensor_destroy(t);
    tdm_tensor_destroy(y);
}

/* An f32 tensor of rows x cols from host values, and its f16 rounding. */
static void upload(tdm_device *dev, const float *v, size_t rows, size_t cols, tdm_tensor **f32,
                   tdm_tensor **f16)
{
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, cols), f32));
    CHECK_OK(tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(rows, cols), f16));
    CHECK_OK(tdm_tensor_write(*f32, v, rows * cols * sizeof(float)));
    CHECK_OK(tdm_op_cast(*f16, *f32));
}

/* c = 0.5 * op(a) * op(b) + c0 in f16 operands, for each transposition, against the
 * product of the halves in double: within 1e-5 of the sum of the terms' magnitudes
 * (f32 sums); and it differs from the product of the unrounded f32 operands. */
static void check_matmul(tdm_device *dev)
{
    enum { M = 37, N = 29, K = 53 };
    static float a[M * K], b[K * N], c0[M * N], c[M * N], exact[M * N];
    static uint16_t ah[M * K], bh[K * N];
    srand(11);
    for (size_t i = 0; i < M * K; i++)
        a[i] = (float)rand() / (float)RAND_MAX * 4.0f - 2.0f;
    for (size_t i = 0; i < K * N; i++)
        b[i] = (float)rand() / (float)RAND_MAX * 4.0f - 2.0f;
    for (size_t i = 0; i < M * N; i++)
        c0[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    for (int trans = 0; trans < 4; trans++) {
        int ta = trans & 1, tb = trans >> 1;
        /* the same values, stored transposed where op transposes */
        tdm_tensor *a32 = NULL, *a16 = NULL, *b32 = NULL, *b16 = NULL, *ct = NULL, *c32 = NULL;
        upload(dev, a, ta ? K : M, ta ? M : K, &a32, &a16);
        upload(dev, b, tb ? N : K, tb ? K : N, &b32, &b16);
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(M, N), &ct));
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(M, N), &c32));
        CHECK_OK(tdm_tensor_write(ct, c0, sizeof c0));
        CHECK_OK(tdm_tensor_write(c32, c0, sizeof c0));
        CHECK_OK(tdm_op_matmul(ct, a16, ta, b16, tb, 0.5f, 1.0f));
        CHECK_OK(tdm_op_matmul(c32, a32, ta, b32, tb, 0.5f, 1.0f));
        CHECK_OK(tdm_tensor_read(a16, ah, sizeof ah));
        CHECK_OK(tdm_tensor_read(b16, bh, sizeof bh));
        CHECK_OK(tdm_tensor_read(ct, c, sizeof c));
        CHECK_OK(tdm_tensor_read(c32, exact, sizeof exact));
        double worst = 0.0;
        size_t differ = 0;
        size_t lda = ta ? M : K, ldb = tb ? K : N;
        for (size_t i = 0; i < M; i++)
            for (size_t j = 0; j < N; j++) {
                double sum = 0.0, mag = fabs(c0[i * N + j]);
                for (size_t p = 0; p < K; p++) {
                    double x = half_value(ah[ta ? p * lda + i : i * lda + p]);
                    double y = half_value(bh[tb ? j * ldb + p : p * ldb + j]);
                    sum += x * y;
                    mag += fabs(0.5 * x * y);
                }
                double want = 0.5 * sum + c0[i * N + j];
                worst = fmax(worst, fabs(c[i * N + j] - want) / mag);
                differ += c[i * N + j] != exact[i * N + j];
            }
        if (worst > 1e-5 || differ < M * N / 2)
            fprintf(stderr,
                    "matmul f16 (trans %d %d): worst error %g of the magnitudes, %zu of %d "
                    "differ from f32\n",
                    ta, tb, worst, differ, M * N);
        CHECK(worst <= 1e-5);
        CHECK(differ >= M * N / 2); /* the operands were rounded */
        CHECK_FAILS(tdm_op_matmul(ct, a16, ta, b32, tb, 1.0f, 0.0f), TDM_ERR_INVALID_ARGUMENT,
                    "'b' must be f16");
        CHECK_FAILS(tdm_op_matmul(ct, a32, ta, b16, tb, 1.0f, 0.0f), TDM_ERR_INVALID_ARGUMENT,
                    "'b' must be f32");
        tdm_tensor *wrong = NULL;
        CHECK_OK(tdm_tensor_create(dev, TDM_F16, &TDM_SHAPE(M, N), &wrong));
        CHECK_FAILS(tdm_op_matmul(wrong, a16, ta, b16, tb, 1.0f, 0.0f), TDM_ERR_INVALID_ARGUMENT,
                    "'c' must be f32");
        tdm_tensor_destroy(wrong);
        tdm_tensor_destroy(c32);
        tdm_tensor_destroy(ct);
        tdm_tensor_destroy(b16);
        tdm_tensor_destroy(b32);
        tdm_tensor_destroy(a16);
        tdm_tensor_destroy(a32);
    }
}

/* A weight gradient's shape, 9 x 32 over k = 5000: long and narrow, which OpenCL
 * splits over k (slices of 555, the last with the rest) and sums in scratch. For each
 * transposition, c = 0.5 * op(a) * op(b) + beta * c against the product of the halves
 * in double, within 1e-5 of the terms' magnitudes; beta 0 over a NaN, else 0.75. On
 * OpenCL the product takes more than its one launch: the partials' sum and its add. */
static void check_matmul_long(tdm_device *dev)
{
    enum { M = 9, N = 32, K = 5000 };
    static float a[M * K], b[K * N], c[M * N];
    static uint16_t ah[M * K], bh[K * N];
    tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
    CHECK_OK(tdm_device_describe(dev, &desc));
    srand(12);
    for (size_t i = 0; i < M * K; i++)
        a[i] = (float)rand() / (float)RAND_MAX * 4.0f - 2.0f;
    for (size_t i = 0; i < K * N; i++)
        b[i] = (float)rand() / (float)RAND_MAX * 4.0f - 2.0f;
    for (int trans = 0; trans < 4; trans++) {
        const int ta = trans & 1, tb = trans >> 1;
        const float beta = trans % 3 ? 0.75f : 0.0f, c0 = beta != 0.0f ? 0.25f : NAN;
        tdm_tensor *a32 = NULL, *a16 = NULL, *b32 = NULL, *b16 = NULL, *ct = NULL;
        upload(dev, a, ta ? K : M, ta ? M : K, &a32, &a16);
        upload(dev, b, tb ? N : K, tb ? K : N, &b32, &b16);
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(M, N), &ct));
        for (size_t i = 0; i < M * N; i++)
            c[i] = c0;
        CHECK_OK(tdm_tensor_write(ct, c, sizeof c));
        tdm_device_counters before = TDM_DEVICE_COUNTERS_INIT, after = TDM_DEVICE_COUNTERS_INIT;
        CHECK_OK(tdm_device_read_counters(dev, &before));
        CHECK_OK(tdm_op_matmul(ct, a16, ta, b16, tb, 0.5f, beta));
        CHECK_OK(tdm_device_read_counters(dev, &after));
        CHECK_OK(tdm_tensor_read(a16, ah, sizeof ah));
        CHECK_OK(tdm_tensor_read(b16, bh, sizeof bh));
        CHECK_OK(tdm_tensor_read(ct, c, sizeof c));
        double worst = 0.0;
        const size_t lda = ta ? M : K, ldb = tb ? K : N;
        for (size_t i = 0; i < M; i++)
            for (size_t j = 0; j < N; j++) {
                double sum = 0.0, mag = beta * 0.25;
                for (size_t p = 0; p < K; p++) {
                    double x = half_value(ah[ta ? p * lda + i : i * lda + p]);
                    double y = half_value(bh[tb ? j * ldb + p : p * ldb + j]);
                    sum += x * y;
                    mag += fabs(0.5 * x * y);
                }
                double want = 0.5 * sum + (beta != 0.0f ? beta * 0.25 : 0.0);
                double err = fabs(c[i * N + j] - want) / mag;
                worst = isnan(err) ? INFINITY : fmax(worst, err);
            }
        const uint64_t launches = after.kernel_launches - before.kernel_launches;
        if (worst > 1e-5 || (desc.backend == TDM_BACKEND_OPENCL && launches < 2))
            fprintf(stderr, "%s: a long f16 product (trans %d %d): worst error %g, %llu launches\n",
                    desc.id, ta, tb, worst, (unsigned long long)launches);
        CHECK(worst <= 1e-5);
        if (desc.backend == TDM_BACKEND_OPENCL)
            CHECK(launches >= 2); /* split over k */
        tdm_tensor_destroy(ct);
        tdm_tensor_destroy(b16);
        tdm_tensor_destroy(b32);
        tdm_tensor_destroy(a16);
        tdm_tensor_destroy(a32);
    }
}

/* The mean over each image and channel as the devices compute it: a float sum in
 * (r, s) order, then one division, of x [b, h, w, c] read back as floats. */
static tdm_tensor *host_means(tdm_device *dev, tdm_dtype dtype, const tdm_tensor *xt, size_t b,
                              size_t hw, size_t c)
{
    tdm_tensor *f32 = NULL;
    size_t n = b * hw * c;
    float *x = malloc(n * sizeof *x), *sums = calloc(b * c, sizeof *sums);
    CHECK(x && sums);
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(b, hw, 1, c), &f32));
    if (dtype == TDM_F16)
        CHECK_OK(tdm_op_cast(f32, xt));
    CHECK_OK(tdm_tensor_read(dtype == TDM_F16 ? f32 : xt, x, n * sizeof *x));
    for (size_t i = 0; i < n; i++)
        sums[i / (hw * c) * c + i % c] += x[i];
    for (size_t i = 0; i < b * c; i++)
        sums[i] /= (float)hw;
    tdm_tensor *means = test_tensor_as(dev, dtype, &TDM_SHAPE(b, c), sums);
    tdm_tensor_destroy(f32);
    free(sums), free(x);
    return means;
}

/* Global average pooling is bitwise average pooling over the window of the whole
 * image, f32 and f16, and its gradient bitwise that pooling's gradient (a -0 in dy
 * included: +0 in dx). An image whose window loops past lavapipe's budget (64 x 128:
 * pieces of rows on every device; lavapipe refuses that window to avg_pool2d) gives
 * the host's float sum in order over its 2^13 positions divided by them (exact on every
 * device), the f16 twin that rounded to half, and dy / 2^13 from +0 as its gradient.
 * Wrong shapes are refused. */
static void check_global_avg_pool(tdm_device *dev)
{
    static const size_t shapes[][4] = {
        {3, 7, 5, 6}, {2, 1, 1, 4}, {4, 8, 8, 16}, {2, 30, 40, 3}, {2, 64, 128, 3}};
    static const tdm_dtype dtypes[] = {TDM_F32, TDM_F16};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        size_t b = shapes[k][0], h = shapes[k][1], w = shapes[k][2], c = shapes[k][3];
        size_t n = b * h * w * c;
        int pieces = h * (w + 1) + 1 > 4000;
        float *x = malloc(n * sizeof *x), *dy = malloc(b * c * sizeof *dy);
        CHECK(x && dy);
        for (size_t i = 0; i < n; i++)
            x[i] = (float)((i * 7919) % 2003) / 1001.0f - 1.0f;
        for (size_t i = 0; i < b * c; i++)
            dy[i] = i == 1 ? -0.0f : (float)((i * 104729) % 1999) / 999.0f - 1.0f;
        tdm_window win = {h, w, h, w, 0, 0};
        for (size_t d = 0; d < 2; d++) {
            tdm_tensor *xt = test_tensor_as(dev, dtypes[d], &TDM_SHAPE(b, h, w, c), x);
            tdm_tensor *y = NULL, *want = NULL;
            CHECK_OK(tdm_tensor_create(dev, dtypes[d], &TDM_SHAPE(b, c), &y));
            CHECK_OK(tdm_op_global_avg_pool(y, xt));
            if (pieces) {
                want = host_means(dev, dtypes[d], xt, b, h * w, c);
            } else {
                CHECK_OK(tdm_tensor_create(dev, dtypes[d], &TDM_SHAPE(b, 1, 1, c), &want));
                CHECK_OK(tdm_op_pool2d(TDM_POOL_AVERAGE, want, xt, &win));
                CHECK_FAILS(tdm_op_global_avg_pool(want, xt), TDM_ERR_INVALID_ARGUMENT,
                            "'y' has shape");
            }
            CHECK(test_same_bits(y, want));
            tdm_tensor_destroy(want);
            tdm_tensor_destroy(y);
            tdm_tensor_destroy(xt);
        }
        tdm_tensor *dyt = test_tensor_as(dev, TDM_F32, &TDM_SHAPE(b, c), dy);
        tdm_tensor *dy4 = test_tensor_as(dev, TDM_F32, &TDM_SHAPE(b, 1, 1, c), dy);
        tdm_tensor *dx = NULL, *want_dx = NULL;
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(b, h, w, c), &dx));
        CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(b, h, w, c), &want_dx));
        CHECK_OK(tdm_op_global_avg_pool_grad(dx, dyt));
        if (pieces) { /* dy over a power of two: exact, from +0 */
            float *spread = malloc(n * sizeof *spread);
            CHECK(spread != NULL);
            for (size_t i = 0; i < n; i++)
                spread[i] = dy[i / (h * w * c) * c + i % c] / (float)(h * w) + 0.0f;
            CHECK_OK(tdm_tensor_write(want_dx, spread, n * sizeof *spread));
            free(spread);
        } else {
            CHECK_OK(tdm_op_pool2d_grad(TDM_POOL_AVERAGE, want_dx, dy4, NULL, &win));
        }
        CHECK(test_same_bits(dx, want_dx));
        CHECK_FAILS(tdm_op_global_avg_pool_grad(dx, dy4), TDM_ERR_INVALID_ARGUMENT,
                    "'dy' has shape");
        CHECK_FAILS(tdm_op_global_avg_pool_grad(NULL, dyt), TDM_ERR_INVALID_ARGUMENT,
                    "argument 'dx' is NULL");
        CHECK_FAILS(tdm_op_global_avg_pool(dyt, dyt), TDM_ERR_INVALID_ARGUMENT, "'x' has shape [");
        CHECK_FAILS(tdm_op_global_avg_pool(dx, dx), TDM_ERR_INVALID_ARGUMENT, "'y' has shape [");
        tdm_tensor_destroy(want_dx);
        tdm_tensor_destroy(dx);
        tdm_tensor_destroy(dy4);
        tdm_tensor_destroy(dyt);
        free(dy), free(x);
    }
}

void test_case_half_ops(const test_run *run)
{
    for (size_t i = 0; i < run->n_devs; i++) {
        tdm_device *dev = run->devs[i];
        check_cast(dev);
        check_matmul(dev);
        check_matmul_long(dev);
        check_cast_int(dev);
        check_embedding_lookup(dev);
        check_embedding_grad(dev);
        check_global_avg_pool(dev);
    }
    check_embedding_devices(run->devs[0], run->devs[1]);
}
