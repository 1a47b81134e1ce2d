/* The cases every kernel is checked on: sizes 0 and 1, primes, sizes around the
 * work-group size, large ones, edge values, and, for linear kernels, integer data
 * that must match the reference exactly; image shapes (strides, windows, SAME, VALID
 * and full padding) for convolution and pooling. Chosen by the kernel's grid (and, for
 * one item per element of the first buffer, whether it is an image), so a new kernel
 * needs no code here. */
#include <stdio.h>
#include <string.h>

#include "conformance.h"

#define LARGE_ELEMENTS ((uint32_t)34 << 20) /* 136 MiB of floats */

typedef struct shape {
    uint32_t a, b, c; /* n, chunk | rows, cols, src_rows (0: the rule below) | m, n, k */
    conf_data data;
} shape;

static const shape element_shapes[] = {
    {0, 0, 0, CONF_RANDOM},
    {1, 0, 0, CONF_RANDOM},
    {2, 0, 0, CONF_EDGE},
    {7, 0, 0, CONF_RANDOM},
    {63, 0, 0, CONF_RANDOM},
    {64, 0, 0, CONF_INTEGER},
    /* index 4 (n = 63) is kept by every kernel: its Philox counter wraps at 2^32 */
    {65, 0, 0, CONF_RANDOM},
    {97, 0, 0, CONF_EDGE},
    {1031, 0, 0, CONF_RANDOM},
    {1031, 0, 0, CONF_EDGE},
    {65537, 0, 0, CONF_RANDOM},
    {65537, 0, 0, CONF_INTEGER},
    {1048579, 0, 0, CONF_RANDOM},
};
static const shape chunk_shapes[] = {
    {1, 1, 0, CONF_RANDOM},
    {7, 3, 0, CONF_RANDOM},
    {7, 3, 0, CONF_EDGE},
    {97, 64, 0, CONF_RANDOM},
    {97, 97, 0, CONF_INTEGER},
    {1031, 100, 0, CONF_EDGE},
    {1031, 1024, 0, CONF_RANDOM},
    {65537, 4096, 0, CONF_RANDOM},
    {65537, 65537, 0, CONF_INTEGER},
    {65537, 65537, 0, CONF_RANDOM},
    {1048579, 1048579, 0, CONF_RANDOM},
};
static const shape matrix_shapes[] = {
    {0, 5, 0, CONF_RANDOM},     {1, 1, 0, CONF_RANDOM},     {3, 7, 0, CONF_RANDOM},
    {64, 10, 0, CONF_RANDOM},   {97, 13, 0, CONF_EDGE},     {97, 13, 0, CONF_INTEGER},
    {1031, 10, 0, CONF_RANDOM}, {13, 1031, 0, CONF_RANDOM}, {5, 3001, 0, CONF_EDGE},
};
/* A gather's adjoint, one item per element of its source: the matrix shapes, and sums
 * over more rows than lavapipe's loops run, which the core launches in pieces. */
static const shape source_shapes[] = {
    {0, 5, 0, CONF_RANDOM},     {1, 1, 0, CONF_RANDOM},     {3, 7, 0, CONF_RANDOM},
    {64, 10, 0, CONF_RANDOM},   {97, 13, 0, CONF_EDGE},     {97, 13, 0, CONF_INTEGER},
    {1031, 10, 0, CONF_RANDOM}, {13, 1031, 0, CONF_RANDOM}, {5, 3001, 0, CONF_EDGE},
    {4001, 2, 3, CONF_EDGE},    {70001, 3, 7, CONF_RANDOM},
};
/* GEMM: m, n, k. From 64 x 64 on, Vulkan's GPU path stages tiles (gemm.glsl): five
 * take it with random data, B transposed and quad-aligned, both transposed and
 * not aligned, neither and aligned, then A transposed and not aligned, B transposed
 * and aligned, both past 128 x 128 (a larger tile's, as TDM_VK_GEMM_TILE sets it).
 * The last two sum past lavapipe's loop limit, which the core launches in pieces of k:
 * both transposed and not aligned, then neither, with quads (A, B and C aligned, C
 * holding two of a CPU driver's 16 x 16 blocks) and a last piece of k not a multiple of 16.
 * Those two and the last two, few tiles over a long k, split k on GPUs (Vulkan's
 * split_main, CLBlast's slices where C's rows are contiguous: the even cases): the
 * last two have blocks partly past m and n, and k past its last quad and its last
 * whole slice. */
static const shape gemm_shapes[] = {
    {1, 1, 1, CONF_RANDOM},      {7, 5, 3, CONF_RANDOM},        {16, 16, 16, CONF_INTEGER},
    {33, 17, 65, CONF_RANDOM},   {9, 7, 0, CONF_RANDOM},        {64, 64, 64, CONF_EDGE},
    {31, 47, 13, CONF_EDGE},     {127, 129, 131, CONF_RANDOM},  {100, 90, 257, CONF_INTEGER},
    {0, 4, 4, CONF_RANDOM},      {68, 72, 36, CONF_RANDOM},     {65, 66, 17, CONF_RANDOM},
    {96, 64, 40, CONF_RANDOM},   {129, 260, 33, CONF_RANDOM},   {256, 128, 48, CONF_EDGE},
    {1, 1, 180000, CONF_RANDOM}, {16, 32, 300004, CONF_RANDOM}, {30, 18, 5003, CONF_RANDOM},
    {20, 36, 4999, CONF_RANDOM},
};

/* Convolution and pooling: an NHWC image, a window, its strides and padding (SAME:
 * TensorFlow's; VALID: none; FULL: the window's size less one on each side, so that
 * every input position meets every window offset); oc is the convolution's output
 * channels. */
typedef enum { SAME, VALID, FULL } padding;
typedef struct image_shape {
    uint32_t batch, h, w, c, oc, kh, kw, sh, sw;
    padding pad;
    conf_data data;
} image_shape;

static const image_shape image_shapes[] = {
    {0, 5, 5, 3, 4, 3, 3, 1, 1, SAME, CONF_RANDOM},
    {2, 5, 4, 0, 3, 3, 3, 1, 1, SAME, CONF_RANDOM}, /* no channels in: empty sums */
    {1, 1, 1, 1, 1, 1, 1, 1, 1, VALID, CONF_RANDOM},
    {1, 5, 5, 3, 4, 3, 3, 1, 1, SAME, CONF_INTEGER},
    {2, 7, 6, 3, 5, 3, 3, 2, 2, SAME, CONF_RANDOM},
    {2, 7, 6, 3, 5, 3, 3, 2, 2, SAME, CONF_EDGE},
    {1, 9, 8, 2, 3, 5, 5, 1, 1, VALID, CONF_RANDOM},
    {3, 8, 9, 4, 2, 3, 2, 2, 1, SAME, CONF_RANDOM},
    {2, 6, 7, 3, 4, 3, 3, 1, 2, FULL, CONF_RANDOM},
    {2, 9, 9, 2, 3, 1, 1, 2, 2, VALID, CONF_INTEGER},
    {2, 4, 4, 3, 3, 2, 2, 3, 3, SAME, CONF_RANDOM}, /* stride past the window: gaps */
    /* windows that do not overlap (pool2): NaN, signed zeros and ties in one window */
    {2, 6, 7, 5, 3, 2, 2, 2, 2, SAME, CONF_EDGE},
    {2, 8, 8, 4, 3, 2, 2, 2, 2, VALID, CONF_INTEGER},
    /* the last row and column in no window: the last window's cell holds them */
    {2, 7, 9, 3, 2, 2, 2, 2, 2, VALID, CONF_EDGE},
    /* a window larger than the image: no output, dx all zeros */
    {1, 2, 3, 2, 2, 3, 3, 3, 3, VALID, CONF_RANDOM},
    /* tiling windows over padding, and channels past one piece of 32 (a CPU's) */
    {2, 7, 8, 3, 2, 3, 3, 3, 3, FULL, CONF_EDGE},
    {2, 7, 6, 37, 3, 2, 2, 2, 2, SAME, CONF_RANDOM},
    {3, 7, 7, 8, 4, 7, 7, 7, 7, VALID, CONF_RANDOM}, /* the whole image: global pooling */
    {2, 31, 33, 5, 7, 4, 4, 2, 2, SAME, CONF_INTEGER},
    {1, 13, 11, 3, 2, 3, 3, 1, 1, SAME, CONF_EDGE},
    {4, 32, 32, 16, 16, 3, 3, 1, 1, SAME, CONF_RANDOM},
    /* the implicit convolutions' products past a GPU's 64 x 64 tile each way (their
     * staged loads), 64 channels in and 68 out; past 128 x 128 each way */
    {2, 10, 9, 64, 68, 3, 3, 1, 1, SAME, CONF_RANDOM},
    {2, 8, 8, 128, 132, 3, 3, 1, 1, SAME, CONF_RANDOM},
    /* the implicit filter gradient's sum over 158700 positions past lavapipe's loop
     * limit: in pieces of two images; over 160000 positions of one image: in pieces
     * of output rows, the first with its padding above */
    {3, 230, 230, 1, 2, 1, 1, 1, 1, VALID, CONF_RANDOM},
    {1, 400, 400, 1, 2, 3, 3, 1, 1, SAME, CONF_RANDOM},
    /* filter gradients launched in pieces of 3 images where the driver ends long
     * loops early (the core's loop budget) */
    {40, 32, 32, 2, 2, 3, 3, 1, 1, SAME, CONF_RANDOM},
    /* more items than 65535 groups of 64 hold: the grid-stride loops go round; filter
     * gradients in pieces of one output row */
    {1, 2100, 2100, 1, 1, 1, 1, 1, 1, VALID, CONF_RANDOM},
};

/* A deterministic value in [0, 1) from a seed and an index. */
static float uniform(unsigned seed, unsigned i)
{
    uint32_t x = seed * 2654435761u ^ (i + 1) * 2246822519u;
    x ^= x >> 15;
    x *= 2654435761u;
    x ^= x >> 13;
    return (float)(x >> 8) * 0x1p-24f;
}

/* Sets the kernel's uint of that name, where it has one. */
static void set_uint(const tdm_kernel_info *info, conf_case *c, tdm_uint_name name, uint32_t v)
{
    int place = tdm_kernel_uint_place(info, name);
    if (place >= 0)
        c->u[place] = v;
}

/* The activations a kernel's activation argument takes in turn: every one. */
static unsigned activation_count(void)
{
    unsigned n = 0;
    while (tdm_activation_names()[n])
        n++;
    return n;
}

/* The scalars no shape decides: flags alternate, counts and seeds vary. */
static void set_free_uints(const tdm_kernel_info *info, conf_case *c, unsigned index)
{
    set_uint(info, c, TDM_UINT_nesterov, index & 1);
    set_uint(info, c, TDM_UINT_centered, index & 1);
    set_uint(info, c, TDM_UINT_trans_a, index & 1);
    set_uint(info, c, TDM_UINT_trans_b, (index >> 1) & 1);
    set_uint(info, c, TDM_UINT_causal, (index >> 1) & 1);
    set_uint(info, c, TDM_UINT_relu, index & 1);
    /* every count of inputs from the fewest (the required buffers) to the most */
    unsigned most_inputs = tdm_kernel_input_count(info),
             fewest = tdm_kernel_required_input_count(info);
    if (most_inputs > fewest)
        set_uint(info, c, TDM_UINT_inputs, fewest + index % (most_inputs - fewest + 1));
    set_uint(info, c, TDM_UINT_activation, index % activation_count());
    set_uint(info, c, TDM_UINT_seed_lo, 0x9E3779B9u * (index + 1));
    set_uint(info, c, TDM_UINT_seed_hi, 12345u + index);
    /* Philox counters: every phase within a block of four, and one that wraps. */
    set_uint(info, c, TDM_UINT_offset, index == 4 ? 0xFFFFFFFFu - 40u : 1001u * index);
}

/* Leading dimensions: exact for even cases, padded by 3 for odd ones. */
static void set_gemm_dims(const tdm_kernel_info *info, conf_case *c, const shape *s, unsigned index)
{
    uint32_t m = s->a, n = s->b, k = s->c, pad = (index & 1) * 3;
    int ta = index & 1, tb = (index >> 1) & 1;
    set_uint(info, c, TDM_UINT_m, m);
    set_uint(info, c, TDM_UINT_n, n);
    set_uint(info, c, TDM_UINT_k, k);
    set_uint(info, c, TDM_UINT_lda, (ta ? m : k) + pad);
    set_uint(info, c, TDM_UINT_ldb, (tb ? k : n) + pad);
    set_uint(info, c, TDM_UINT_ldc, n + pad);
}

/* Output size and leading padding of one dimension. */
static void window_dims(uint32_t size, uint32_t k, uint32_t stride, padding pad, uint32_t *out,
                        uint32_t *lead)
{
    uint32_t total = 0;
    if (pad == SAME) {
        *out = (size + stride - 1) / stride;
        total = *out && (*out - 1) * stride + k > size ? (*out - 1) * stride + k - size : 0;
        *lead = total / 2;
    } else if (pad == VALID) {
        *out = size >= k ? (size - k) / stride + 1 : 0;
        *lead = 0;
    } else {
        *out = (size + k - 2) / stride + 1;
        *lead = k - 1;
    }
}

static void apply_image_shape(const tdm_kernel_info *info, conf_case *c, const image_shape *s)
{
    static const char *const pads[] = {"same", "valid", "full"};
    uint32_t oh, ow, top, left;
    window_dims(s->h, s->kh, s->sh, s->pad, &oh, &top);
    window_dims(s->w, s->kw, s->sw, s->pad, &ow, &left);
    /* a global pooling sums every row (rows; row0 stays 0) and ignores the window */
    const tdm_uint_name names[] = {
        TDM_UINT_batch,    TDM_UINT_h,       TDM_UINT_w,        TDM_UINT_c,   TDM_UINT_oc,
        TDM_UINT_kh,       TDM_UINT_kw,      TDM_UINT_oh,       TDM_UINT_ow,  TDM_UINT_stride_h,
        TDM_UINT_stride_w, TDM_UINT_pad_top, TDM_UINT_pad_left, TDM_UINT_rows};
    const uint32_t values[] = {s->batch, s->h, s->w,  s->c,  s->oc, s->kh, s->kw,
                               oh,       ow,   s->sh, s->sw, top,   left,  s->h};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        set_uint(info, c, names[i], values[i]);
    snprintf(c->label, sizeof c->label, "%ux%ux%ux%u k%ux%u s%ux%u %s", s->batch, s->h, s->w, s->c,
             s->kh, s->kw, s->sh, s->sw, pads[s->pad]);
}

static void set_floats(const tdm_kernel_info *info, conf_case *c)
{
    for (unsigned i = 0; i < info->float_count; i++) {
        float lo = info->floats[i].min, hi = info->floats[i].max;
        float v = lo + (hi - lo) * uniform(c->seed, 1000 + i);
        /* Integer data stays exact only with integer scalars. */
        c->f[i] = c->data == CONF_INTEGER ? (float)(int)(v + (v < 0 ? -0.5f : 0.5f)) : v;
    }
}

static void apply_shape(const tdm_kernel_info *info, conf_case *c, const shape *s, unsigned index)
{
    switch (info->grid) {
    case TDM_GRID_N:
    case TDM_GRID_PAIRS:
        set_uint(info, c, TDM_UINT_n, s->a);
        snprintf(c->label, sizeof c->label, "n=%u", s->a);
        break;
    case TDM_GRID_CHUNKS:
        set_uint(info, c, TDM_UINT_n, s->a);
        set_uint(info, c, TDM_UINT_chunk, s->b);
        snprintf(c->label, sizeof c->label, "n=%u chunk=%u", s->a, s->b);
        break;
    case TDM_GRID_CELLS:
    case TDM_GRID_ROWS:
    case TDM_GRID_COLS:
    case TDM_GRID_PLANES: /* a filter's transform; images: apply_image_shape */
    case TDM_GRID_OUTPUT: /* a gather's adjoint; images: apply_image_shape */
        set_uint(info, c, TDM_UINT_rows, s->a);
        set_uint(info, c, TDM_UINT_cols, s->b);
        /* A gather's source: more rows than it gathers (every row at most once or
         * twice), or fewer (rows repeat). */
        set_uint(info, c, TDM_UINT_src_rows, s->c ? s->c : index & 1 ? s->a / 2 + 1 : s->a + 5);
        /* A block of columns inside wider rows (copy_columns): exact or padded. */
        set_uint(info, c, TDM_UINT_lda, s->b + (index & 1) * 3);
        set_uint(info, c, TDM_UINT_ldc, s->b + (index & 2));
        snprintf(c->label, sizeof c->label, "%ux%u", s->a, s->b);
        break;
    case TDM_GRID_TILES:
        set_gemm_dims(info, c, s, index);
        snprintf(c->label, sizeof c->label, "%ux%ux%u%s%s", s->a, s->b, s->c,
                 index & 1 ? " At" : "", index & 2 ? " Bt" : "");
        break;
    }
}

static const shape *shapes_for(tdm_grid grid, size_t *count)
{
#define SHAPES(list) (*count = sizeof list / sizeof list[0], list)
    switch (grid) {
    case TDM_GRID_CHUNKS: return SHAPES(chunk_shapes);
    case TDM_GRID_CELLS:
    case TDM_GRID_ROWS:
    case TDM_GRID_COLS:
    case TDM_GRID_PLANES: return SHAPES(matrix_shapes);
    case TDM_GRID_TILES: return SHAPES(gemm_shapes);
    case TDM_GRID_OUTPUT: return SHAPES(source_shapes);
    case TDM_GRID_N:
    case TDM_GRID_PAIRS: break;
    }
    return SHAPES(element_shapes);
#undef SHAPES
}

/* The large case: one representative kernel per splittable grid, plus dropout,
 * whose Philox counter must advance with each piece of a split launch. */
static int takes_large_case(tdm_kernel k)
{
    return k == TDM_KERNEL_axpy || k == TDM_KERNEL_cast_f32_f16 || k == TDM_KERNEL_sum ||
           k == TDM_KERNEL_dropout || k == TDM_KERNEL_adam;
}

/* Every other case moves its views off the start of their buffers, each by a
 * different amount, so that no two views share their alignment: kernels that move
 * four elements per access must fall back where the views' phases differ. Float16
 * views start on an even element (a word of two halves). Written views start after
 * a guard (CONF_GUARD, a multiple of 4: the phases stay). */
static void set_offsets(const tdm_kernel_info *info, conf_case *c, unsigned index)
{
    int halves = 0;
    for (unsigned b = 0; b < info->buffer_count; b++)
        halves |= info->buffers[b].type == 'h';
    for (unsigned b = 0; b < info->buffer_count; b++) {
        if (index & 1)
            c->offset[b] = halves ? 2 + 2 * (b & 1) : 1 + b % 4;
        if (info->buffers[b].written)
            c->offset[b] += CONF_GUARD;
    }
}

/* A case of shape s, or of the image shape where s is NULL. */
static conf_case make_case(tdm_kernel kernel, const shape *s, const image_shape *image,
                           unsigned index)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    conf_case c;
    memset(&c, 0, sizeof c);
    c.kernel = kernel;
    c.data = s ? s->data : image->data;
    c.seed = 7919u * (unsigned)kernel + 104729u * index + 1;
    set_offsets(info, &c, index);
    set_free_uints(info, &c, index);
    if (s)
        apply_shape(info, &c, s, index);
    else
        apply_image_shape(info, &c, image);
    set_floats(info, &c);
    return c;
}

/* Convolution and pooling take images (the implicit convolutions too, whose grid is
 * gemm's); a gather's adjoint, rows of its source. */
static int takes_images(const tdm_kernel_info *info)
{
    return tdm_kernel_uint_place(info, TDM_UINT_batch) >= 0;
}

/* Integer data proves nothing extra for nonlinear kernels with a tolerance. */
static int skips(const tdm_kernel_info *info, conf_data data)
{
    return data == CONF_INTEGER && !info->tolerance.linear &&
           info->tolerance.ulps + info->tolerance.rel > 0;
}

size_t conf_cases(tdm_kernel kernel, int large, conf_case *out, size_t max)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    size_t count, n = 0;
    if (takes_images(info)) {
        count = sizeof image_shapes / sizeof image_shapes[0];
        for (size_t i = 0; i < count && n < max; i++)
            if (!skips(info, image_shapes[i].data))
                out[n++] = make_case(kernel, NULL, &image_shapes[i], (unsigned)i);
        return n;
    }
    const shape *shapes = shapes_for(info->grid, &count);
    for (size_t i = 0; i < count && n < max; i++) {
        if (!skips(info, shapes[i].data))
            out[n++] = make_case(kernel, &shapes[i], NULL, (unsigned)i);
    }
    if (large && takes_large_case(kernel) && n < max) {
        shape big = {LARGE_ELEMENTS, info->grid == TDM_GRID_CHUNKS ? 1u << 20 : 0, 0, CONF_RANDOM};
        out[n] = make_case(kernel, &big, NULL, (unsigned)count);
        out[n].large = 1;
        snprintf(out[n].label, sizeof out[n].label, "n=%u (%u MiB)", big.a, big.a / (1 << 18));
        n++;
    }
    return n;
}

size_t conf_case_buffer_bytes(const conf_case *c, unsigned b)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    const tdm_kernel_buffer *kb = &info->buffers[b];
    return (c->offset[b] + tdm_kernel_extent(info, c->u, kb->extent) + CONF_GUARD) *
           tdm_kernel_type_size(kb->type);
}

size_t conf_case_largest_view(const conf_case *c)
{
    const tdm_kernel_info *info = tdm_kernel_get(c->kernel);
    size_t largest = 0;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        size_t n = tdm_kernel_extent(info, c->u, info->buffers[b].extent);
        largest = n > largest ? n : largest;
    }
    return largest;
}

conf_case conf_perf_case(tdm_kernel kernel, uint32_t n)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    shape s = {n, info->grid == TDM_GRID_CHUNKS ? 4096u : 0, 0, CONF_RANDOM};
    conf_case c = make_case(kernel, &s, NULL, 0);
    /* accumulate: y = x0 + x1, as a two-device reduction does */
    set_uint(info, &c, TDM_UINT_inputs, 2);
    return c;
}

conf_case conf_image_perf_case(tdm_kernel kernel, const uint32_t image[4], uint32_t k,
                               uint32_t stride)
{
    const image_shape s = {image[0], image[1], image[2], image[3], image[3],   k,
                           k,        stride,   stride,   SAME,     CONF_RANDOM};
    return make_case(kernel, NULL, &s, 0);
}
