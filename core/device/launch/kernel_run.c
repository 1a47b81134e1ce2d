/* tdm_kernel_run: checks a call against the kernel table, sizes the grid, and
 * splits launches whose buffers a device cannot bind in one piece. */
#include <inttypes.h>
#include <string.h>

#include "device/memory/buffer_checks.h"
#include "device/device_status.h"
#include "base/error.h"
#include "kernel/kernel.h"
#include "kernel/kernel_args.h"
#include "device/memory/peer_access.h"

static const char *F = "tdm_kernel_run";

/* The value of the kernel's uint `name` in u, 0 if it has none. */
#define U(name) tdm_kernel_uint(info, u, TDM_UINT_##name)
/* Whether the kernel has the uint `name`. */
#define HAS(name) (tdm_kernel_uint_place(info, TDM_UINT_##name) >= 0)

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : 0;
}

/* Convolution and pooling: strides of at least 1, and window positions that int32
 * arithmetic reaches, negative ones (padding) included. */
static tdm_status check_window(const tdm_kernel_info *info, const uint32_t *u)
{
    if (!HAS(stride_h))
        return TDM_OK;
    uint64_t sh = U(stride_h), sw = U(stride_w);
    if (sh == 0 || sw == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: a stride is 0", F, info->name);
    uint64_t rows = U(oh) * sh + U(kh) + U(h) + U(pad_top);
    uint64_t cols = U(ow) * sw + U(kw) + U(w) + U(pad_left);
    if (rows > INT32_MAX || cols > INT32_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: the image, its window and padding reach past 2^31 rows or "
                        "columns",
                        F, info->name);
    return TDM_OK;
}

/* The uints whose values the kernels rely on. */
static tdm_status check_uints(const tdm_kernel_info *info, const uint32_t *u)
{
    static const tdm_uint_name flags[] = {TDM_UINT_nesterov, TDM_UINT_centered, TDM_UINT_trans_a,
                                          TDM_UINT_trans_b, TDM_UINT_relu};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (tdm_kernel_uint(info, u, flags[i]) > 1)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: '%s' must be 0 or 1", F, info->name,
                            tdm_kernel_uint_name(flags[i]));
    if (HAS(row0) && U(row0) + U(rows) > U(h))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: rows %" PRIu64 " .. %" PRIu64 " of an image of %" PRIu64 " rows",
                        F, info->name, U(row0), U(row0) + U(rows), U(h));
    if (HAS(chunk) && U(chunk) == 0)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: 'chunk' is 0", F, info->name);
    uint64_t inputs = U(inputs), k = U(k);
    unsigned fewest = tdm_kernel_required_input_count(info);
    if (HAS(inputs) && (inputs < fewest || inputs > tdm_kernel_input_count(info)))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: 'inputs' is %" PRIu64 ", expected %u to %u", F, info->name, inputs,
                        fewest, tdm_kernel_input_count(info));
    if (HAS(lda)) {
        int ta = U(trans_a) != 0, tb = U(trans_b) != 0;
        uint64_t m = U(m), n = U(n), lda = U(lda), ldb = U(ldb), ldc = U(ldc);
        if (lda < (ta ? m : k) || ldb < (tb ? k : n) || ldc < n)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: %s: a leading dimension is smaller than its matrix's row "
                            "(lda %" PRIu64 ", ldb %" PRIu64 ", ldc %" PRIu64 " for m %" PRIu64
                            ", n %" PRIu64 ", k %" PRIu64 ")",
                            F, info->name, lda, ldb, ldc, m, n, k);
    }
    return check_window(info, u);
}

static tdm_status check_view(const tdm_device *dev, const tdm_kernel_info *info,
                             const tdm_kernel_call *call, unsigned b)
{
    const tdm_kernel_buffer *kb = &info->buffers[b];
    const tdm_buffer_view *v = &call->views[b];
    if (!v->buffer)
        return tdm_kernel_buffer_used(info, call->u, b)
                   ? tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %s: buffer '%s' is NULL", F,
                              info->name, kb->name)
                   : TDM_OK;
    tdm_status s = tdm_check_view(v, F, kb->name);
    if (s != TDM_OK)
        return s;
    if (!tdm_device_shares_memory(dev, v->buffer->device))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: buffer '%s' is on %s, which %s cannot reach", F, info->name,
                        kb->name, v->buffer->device->desc.id, dev->desc.id);
    unsigned size = tdm_kernel_type_size(kb->type), align = kb->type == 'h' ? 4 : size;
    if (v->offset % align)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: buffer '%s' offset %zu is not a multiple of %u bytes", F,
                        info->name, kb->name, v->offset, align);
    uint64_t need = tdm_kernel_extent(info, call->u, kb->extent);
    if (v->size / size < need)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: buffer '%s' holds %zu elements, the call needs %" PRIu64, F,
                        info->name, kb->name, v->size / size, need);
    if (v->offset / size + need > (uint64_t)UINT32_MAX + 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s: buffer '%s' reaches past 2^32 elements, which kernels "
                        "cannot index",
                        F, info->name, kb->name);
    return TDM_OK;
}

static tdm_status check_call(const tdm_device *dev, const tdm_kernel_info *info,
                             const tdm_kernel_call *call)
{
    tdm_status s = check_uints(info, call->u);
    for (unsigned b = 0; b < info->buffer_count && s == TDM_OK; b++)
        s = check_view(dev, info, call, b);
    return s;
}

/* Whether max_pool2d_grad's windows tile the image (stride equal to the window, some
 * output), where its kernels take a window an item instead of gathering
 * (kernels/max_pool2d_grad.cl). */
static int pool_windows_tile(const tdm_kernel_info *info, const uint32_t *u)
{
    return U(stride_h) == U(kh) && U(stride_w) == U(kw) && U(oh) && U(ow);
}

/* Elements of its output a work-item of an image kernel takes where the device runs
 * them so (image_runs): a position's channels, im2col's row of col, or
 * max_pool2d_grad's window where windows tile the image, the channels of its
 * positions, a Winograd tile's channels (kernels/pool_window.clh's tdm_run,
 * kernels/im2col.cl, kernels/max_pool2d_grad.cl, kernels/winograd_*.cl); 1 elsewhere. An item per
 * element would leave all but one of each run's items idle, and on a CPU driver the
 * idle work-groups cost more than the work (im2col at 64x14x14x32: 7.7 -> 1.3 ms).
 * Never 0: an empty run's launch has no elements anyway. */
static uint64_t image_run(const tdm_device *dev, const tdm_kernel_info *info, const uint32_t *u)
{
    uint64_t run = 1;
    if (!dev->traits.image_runs)
        return run;
    switch (info->base) {
    case TDM_KERNEL_im2col: run = U(kh) * U(kw) * U(c); break;
    case TDM_KERNEL_col2im:
    case TDM_KERNEL_max_pool2d:
    case TDM_KERNEL_winograd_input: run = U(c); break;
    case TDM_KERNEL_winograd_output: run = U(oc); break;
    case TDM_KERNEL_max_pool2d_grad:
        run = U(c) * (pool_windows_tile(info, u) ? U(stride_h) * U(stride_w) : 1);
        break;
    default: break;
    }
    return run ? run : 1;
}

/* Units of its grid (TDM_GRID_N, _CELLS: elements; _PAIRS: pairs) a work-item of an
 * element kernel takes where the backend's element kernels take four elements or
 * more (quad_items): 4 elements, or 2 pairs; dropout 16 (four Philox blocks); 1
 * elsewhere, and for the kernels that take one element an item on every backend. A
 * kernel whose count is wrong here still runs right, its grid-stride loop going round
 * more or less. On PoCL an item per element left three in four idle, and the idle
 * ones cost: relu 1.8 -> 1.0-1.5 ms, adam 2.9 -> 1.7-2.1 ms at 6 MB. */
static uint64_t units_per_item(const tdm_device *dev, const tdm_kernel_info *info)
{
    if (!dev->traits.quad_items)
        return 1;
    switch (info->base) {
    case TDM_KERNEL_cast_f32_i32:
    case TDM_KERNEL_one_hot:
    case TDM_KERNEL_gather_rows:
    case TDM_KERNEL_batch_norm_apply:
    case TDM_KERNEL_batch_norm_xhat_dy:
    case TDM_KERNEL_batch_norm_grad: return 1;
    case TDM_KERNEL_dropout: return 16;
    default: return info->grid == TDM_GRID_PAIRS ? 2 : 4;
    }
}

/* Work-groups for the call, 0 when there is nothing to do. */
static uint64_t groups_for(const tdm_device *dev, const tdm_kernel_info *info, const uint32_t *u)
{
    uint64_t items = 0, groups;
    switch (info->grid) {
    case TDM_GRID_N: items = ceil_div(U(n), units_per_item(dev, info)); break;
    case TDM_GRID_PAIRS: items = ceil_div(U(n), 2 * units_per_item(dev, info)); break;
    case TDM_GRID_CELLS: items = ceil_div(U(rows) * U(cols), units_per_item(dev, info)); break;
    case TDM_GRID_ROWS: items = U(rows); break;
    case TDM_GRID_OUTPUT:
        items =
            ceil_div(tdm_kernel_extent(info, u, info->buffers[0].extent), image_run(dev, info, u));
        break;
    case TDM_GRID_COLS: items = U(cols); break;
    case TDM_GRID_PLANES:
        items = ceil_div(tdm_kernel_winograd_plane(info, u), image_run(dev, info, u));
        break;
    case TDM_GRID_CHUNKS:
        groups = ceil_div(U(n), U(chunk));
        return groups < TDM_KERNEL_MAX_GROUPS ? groups : TDM_KERNEL_MAX_GROUPS;
    case TDM_GRID_TILES: {
        uint32_t m, n, k;
        tdm_kernel_product(info, u, &m, &n, &k);
        groups = ceil_div(m, 16) * ceil_div(n, 16);
        return groups < TDM_KERNEL_MAX_GROUPS ? groups : TDM_KERNEL_MAX_GROUPS;
    }
    }
    /* As many groups as items allow: on CPU drivers a grid-stride loop with a long
     * stride defeats the prefetchers (PoCL's copy ran at a quarter of the speed with
     * 4096 groups). */
    groups = ceil_div(items, info->wg);
    return groups < TDM_KERNEL_MAX_GROUPS ? groups : TDM_KERNEL_MAX_GROUPS;
}

static tdm_launch make_launch(const tdm_kernel_info *info, const tdm_kernel_call *call)
{
    tdm_launch l;
    memset(&l, 0, sizeof l);
    l.kernel = call->kernel;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        l.buffers[b] = call->views[b].buffer;
        l.offsets[b] =
            (uint32_t)(call->views[b].offset / tdm_kernel_type_size(info->buffers[b].type));
    }
    memcpy(l.u, call->u, sizeof l.u);
    memcpy(l.f, call->f, sizeof l.f);
    return l;
}

/* Bytes of the largest range the launch touches in any buffer. */
static uint64_t widest_range(const tdm_kernel_info *info, const uint32_t *u)
{
    uint64_t widest = 0;
    for (unsigned b = 0; b < info->buffer_count; b++) {
        const tdm_kernel_buffer *kb = &info->buffers[b];
        uint64_t bytes = tdm_kernel_extent(info, u, kb->extent) * tdm_kernel_type_size(kb->type);
        widest = bytes > widest ? bytes : widest;
    }
    return widest;
}

static tdm_status launch_once(tdm_device *dev, const tdm_kernel_info *info, tdm_launch *l)
{
    uint64_t groups = groups_for(dev, info, l->u);
    if (groups == 0)
        return TDM_OK;
    l->groups = (uint32_t)groups;
    atomic_fetch_add_explicit(&dev->launches, 1, memory_order_relaxed);
    return tdm_device_result(dev, dev->ops->launch(dev, dev->impl, l));
}

/* Elementwise and chunked kernels index every buffer by one element position, so a
 * launch splits into pieces of `piece` elements (a whole number of chunks), each
 * with its offsets moved along, the Philox counter too. */
static tdm_status launch_in_pieces(tdm_device *dev, const tdm_kernel_info *info, tdm_launch *l)
{
    int chunked = info->grid == TDM_GRID_CHUNKS;
    uint64_t unit = chunked ? l->u[1] : 64, n = l->u[0];
    uint64_t piece = dev->traits.max_binding_bytes / 4 / unit * unit;
    if (piece == 0)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s: a chunk of %" PRIu64
                        " elements does not fit %s's binding limit of %" PRIu64 " bytes",
                        F, info->name, unit, dev->desc.id, dev->traits.max_binding_bytes);
    int counter = tdm_kernel_uint_place(info, TDM_UINT_offset);
    tdm_launch part = *l;
    tdm_status s = TDM_OK;
    for (uint64_t start = 0; start < n && s == TDM_OK; start += piece) {
        part.u[0] = (uint32_t)(n - start < piece ? n - start : piece);
        for (unsigned b = 0; b < info->buffer_count; b++) {
            int per_chunk = info->buffers[b].extent == TDM_EXTENT_P;
            part.offsets[b] = l->offsets[b] + (uint32_t)(per_chunk ? start / unit : start);
        }
        if (counter >= 0)
            part.u[counter] = l->u[counter] + (uint32_t)start;
        s = launch_once(dev, info, &part);
    }
    return s;
}

/* Elements of the first buffer each invocation loops over (the grid-stride loop). */
static uint64_t rounds_of(const tdm_kernel_info *info, const uint32_t *u)
{
    uint64_t items = tdm_kernel_extent(info, u, info->buffers[0].extent);
    return ceil_div(items, (uint64_t)TDM_KERNEL_MAX_GROUPS * info->wg);
}

/* The loop iterations one item of a launch may run on dev, over `rounds` rounds of
 * the grid-stride loop; 0 where the driver runs loops of any length. */
static uint64_t item_budget(const tdm_device *dev, uint64_t rounds)
{
    uint64_t limit = dev->traits.max_loop_iterations;
    return rounds ? limit / rounds : limit;
}

/* A product kernel (TDM_GRID_TILES: gemm.glsl's loops) sums k products an element of
 * its product, and lavapipe ends an invocation's loops after 65535 iterations in all,
 * silently: a 1 x 1 gemm over k = 180000 came out wrong, over 170000 right, some 6
 * iterations per STEP_K (16) of k. The most of k one launch may sum on a device
 * whose driver ends long loops early: 16 budgets an invocation (a group runs as
 * vectors of 4 lanes or more) at 8 iterations per 16 of k, divided among the blocks
 * or tiles an invocation takes where 65535 groups do not hold a 16 x 16 tile each;
 * 0 where not even 16 fit. */
static uint64_t product_k_budget(const tdm_device *dev, const tdm_kernel_info *info,
                                 const uint32_t *u)
{
    uint32_t m, n, k;
    tdm_kernel_product(info, u, &m, &n, &k);
    uint64_t rounds = ceil_div(ceil_div(m, 16) * ceil_div(n, 16), TDM_KERNEL_MAX_GROUPS);
    uint64_t per_invocation =
        16 * (uint64_t)dev->traits.max_loop_iterations / (rounds ? rounds : 1);
    return per_invocation > 2 ? (per_invocation - 2) / 8 * 16 : 0;
}

/* gemm and gemm_f16 on a device whose driver ends long loops early: in pieces of k
 * within product_k_budget, the first with the call's beta, each next one adding to C
 * (beta 1), the views of A and B moved along k. Each piece scales its own products by
 * alpha: the sums are reassociated, as gemm's tolerance allows. */
static tdm_status launch_gemm(tdm_device *dev, const tdm_kernel_info *info, const tdm_launch *l)
{
    const tdm_gemm_scalars s = tdm_gemm_scalars_of(l); /* gemm_f16's are the same */
    const tdm_gemm_slots slot = tdm_gemm_slots_of();
    uint64_t piece = product_k_budget(dev, info, l->u);
    tdm_launch part = *l;
    if (!dev->traits.max_loop_iterations || s.k <= piece)
        return launch_once(dev, info, &part);
    if (piece == 0)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s: a %ux%u product passes a loop budget of %u iterations, more "
                        "than %s runs right (its driver ends longer loops early)",
                        F, info->name, s.m, s.n, dev->traits.max_loop_iterations, dev->desc.id);
    tdm_status st = TDM_OK;
    for (uint64_t p = 0; p < s.k && st == TDM_OK; p += piece) {
        part.u[TDM_UINT_AT(gemm, k)] = (uint32_t)(s.k - p < piece ? s.k - p : piece);
        part.offsets[slot.a] = l->offsets[slot.a] + (uint32_t)(s.trans_a ? p * s.lda : p);
        part.offsets[slot.b] = l->offsets[slot.b] + (uint32_t)(s.trans_b ? p : p * s.ldb);
        part.f[TDM_FLOAT_AT(gemm, beta)] = p ? 1.0f : s.beta;
        st = launch_once(dev, info, &part);
    }
    return st;
}

/* conv2d_grad_filter sums batch * oh * ow terms per element, past what lavapipe's
 * loops run (TDM_KERNEL_LOOP_BUDGET): on a device whose driver ends long loops early,
 * the core launches it in pieces within the budget: runs of whole images, or runs of
 * output rows of one image (the view of x starts at the piece's first window row, or
 * the padding above it shrinks). The kernel adds its sums to df, so each piece
 * continues the sums of the last in the order of one launch: the result is bitwise
 * that of one launch, which every other device runs. conv2d_implicit_grad_filter,
 * of the same arguments, sums as many positions, its product's k, and takes the same
 * pieces within product_k_budget: gemm's order within a piece; so does
 * conv2d_implicit_grad_filter_bias, its buffers in the same slots and db (last) adding
 * on as df does. */
static tdm_status launch_filter_gradient(tdm_device *dev, const tdm_kernel_info *info,
                                         const tdm_launch *l)
{
    const tdm_conv2d_grad_filter_scalars s = tdm_conv2d_grad_filter_scalars_of(l);
    const tdm_conv2d_grad_filter_slots slot = tdm_conv2d_grad_filter_slots_of();
    uint64_t images, rows; /* a piece's, as many as the budget allows */
    if (info->base == TDM_KERNEL_conv2d_implicit_grad_filter ||
        info->base == TDM_KERNEL_conv2d_implicit_grad_filter_bias) {
        uint64_t positions = product_k_budget(dev, info, l->u), per_image = (uint64_t)s.oh * s.ow;
        images = per_image ? positions / per_image : s.batch;
        rows = s.ow ? positions / s.ow : s.oh;
    } else {
        uint64_t budget = item_budget(dev, rounds_of(info, l->u));
        uint64_t per_row = 1 + (uint64_t)s.ow, per_image = 1 + s.oh * per_row;
        images = budget ? (budget - 1) / per_image : 0;
        rows = budget > 2 ? (budget - 2) / per_row : 0;
    }
    tdm_launch part = *l;
    if (!dev->traits.max_loop_iterations || s.batch <= images)
        return launch_once(dev, info, &part);
    if (rows == 0)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s: rows of %u outputs pass a loop budget of %u iterations, more "
                        "than %s runs right (its driver ends longer loops early)",
                        F, info->name, s.ow, dev->traits.max_loop_iterations, dev->desc.id);
    uint64_t image_x = (uint64_t)s.h * s.w * s.c, image_dy = (uint64_t)s.oh * s.ow * s.oc;
    const unsigned ib = TDM_UINT_AT(conv2d_grad_filter, batch),
                   ih = TDM_UINT_AT(conv2d_grad_filter, h),
                   ioh = TDM_UINT_AT(conv2d_grad_filter, oh),
                   ipt = TDM_UINT_AT(conv2d_grad_filter, pad_top);
    tdm_status st = TDM_OK;
    for (uint64_t b = 0; b < s.batch && images && st == TDM_OK; b += images) {
        part.u[ib] = (uint32_t)(s.batch - b < images ? s.batch - b : images);
        part.offsets[slot.x] = l->offsets[slot.x] + (uint32_t)(b * image_x);
        part.offsets[slot.dy] = l->offsets[slot.dy] + (uint32_t)(b * image_dy);
        st = launch_once(dev, info, &part);
    }
    for (uint64_t b = 0; b < s.batch && !images && st == TDM_OK; b++)
        for (uint64_t i = 0; i < s.oh && st == TDM_OK; i += rows) {
            /* the piece's first window row; above the image, its padding instead */
            int64_t first = (int64_t)(i * s.stride_h) - s.pad_top;
            uint64_t skip = first <= 0 ? 0 : (uint64_t)first < s.h ? (uint64_t)first : s.h;
            part.u[ib] = 1;
            part.u[ioh] = (uint32_t)(s.oh - i < rows ? s.oh - i : rows);
            part.u[ih] = (uint32_t)(s.h - skip);
            part.u[ipt] = (uint32_t)(first < 0 ? -first : 0);
            part.offsets[slot.x] = l->offsets[slot.x] + (uint32_t)(b * image_x + skip * s.w * s.c);
            part.offsets[slot.dy] =
                l->offsets[slot.dy] + (uint32_t)(b * image_dy + i * s.ow * s.oc);
            st = launch_once(dev, info, &part);
        }
    return st;
}

/* gather_rows_grad sums `rows` terms per element of dx, past what lavapipe's loops run
 * at enough rows: as conv2d_grad_filter, the core launches it there in pieces of
 * budget - 1 rows (an item's loop over them, and its own iteration), the views of dy
 * and idx moved to the piece's first row. The kernel adds to dx, so each piece
 * continues the sums of the last: bitwise one launch. dx spans less than 2^32
 * elements, at most 1025 rounds, so a piece holds 2 rows or more. */
static tdm_status launch_gather_gradient(tdm_device *dev, const tdm_kernel_info *info,
                                         const tdm_launch *l)
{
    const tdm_gather_rows_grad_scalars s = tdm_gather_rows_grad_scalars_of(l);
    const tdm_gather_rows_grad_slots slot = tdm_gather_rows_grad_slots_of();
    tdm_launch part = *l;
    if (!dev->traits.max_loop_iterations)
        return launch_once(dev, info, &part);
    uint64_t piece = item_budget(dev, rounds_of(info, l->u)) - 1;
    const unsigned ir = TDM_UINT_AT(gather_rows_grad, rows);
    tdm_status st = TDM_OK;
    for (uint64_t r = 0; r < s.rows && st == TDM_OK; r += piece) {
        part.u[ir] = (uint32_t)(s.rows - r < piece ? s.rows - r : piece);
        part.offsets[slot.dy] = l->offsets[slot.dy] + (uint32_t)(r * s.cols);
        part.offsets[slot.idx] = l->offsets[slot.idx] + (uint32_t)r;
        st = launch_once(dev, info, &part);
    }
    return st;
}

/* global_avg_pool sums h * w terms per element of y, past what lavapipe's loops run
 * for a large image: as conv2d_grad_filter, the core launches it there in pieces of
 * rows within the budget (per row, an item's loop over its columns and the
 * row's own iteration; per piece, the item's), each continuing the sum the last left
 * in `sum`: bitwise one launch. A row longer than the budget goes one per launch,
 * except on a device whose driver ends long loops early, which refuses it. The float16
 * twin takes the same pieces: its sum is float32. */
static tdm_status launch_global_pool(tdm_device *dev, const tdm_kernel_info *info,
                                     const tdm_launch *l)
{
    const tdm_global_avg_pool_scalars s = tdm_global_avg_pool_scalars_of(l);
    uint64_t rounds = rounds_of(info, l->u), budget = item_budget(dev, rounds);
    uint64_t piece = dev->traits.max_loop_iterations ? (budget - 1) / (1 + (uint64_t)s.w) : s.rows;
    if (piece == 0 && dev->traits.max_loop_iterations)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s: rows of %u columns, %" PRIu64 " elements of y per invocation, "
                        "pass a loop budget of %u iterations, more than %s runs right (its "
                        "driver ends longer loops early)",
                        F, info->name, s.w, rounds, dev->traits.max_loop_iterations, dev->desc.id);
    piece = piece ? piece : 1;
    const unsigned i0 = TDM_UINT_AT(global_avg_pool, row0), ir = TDM_UINT_AT(global_avg_pool, rows);
    tdm_launch part = *l;
    tdm_status st = TDM_OK;
    uint64_t r = 0;
    do { /* one launch at least: no rows still write sum and y */
        part.u[i0] = s.row0 + (uint32_t)r;
        part.u[ir] = (uint32_t)(s.rows - r < piece ? s.rows - r : piece);
        st = launch_once(dev, info, &part);
        r += piece;
    } while (r < s.rows && st == TDM_OK);
    return st;
}

/* The most positions along an axis that max_pool2d_grad's cell of one window holds:
 * the stride's, or the last window's, from its start to the image's end. */
static uint64_t pool_cell_extent(uint64_t size, uint64_t outputs, uint64_t stride, uint64_t pad)
{
    uint64_t start = (outputs - 1) * stride, last = size + pad > start ? size + pad - start : 0;
    uint64_t most = last > stride ? last : stride;
    return most < size ? most : size;
}

/* max_pool2d_grad's loop iterations an item, as window_loops. Windows that tile the
 * image are an item's each (its window, then its cell), `spans` of them a round
 * where there are more windows than elements of dx; others rescan every window that
 * holds the item's element. */
static uint64_t max_pool_grad_loops(const tdm_kernel_info *info, const uint32_t *u)
{
    uint64_t kh = U(kh), kw = U(kw), sh = U(stride_h), sw = U(stride_w), oh = U(oh), ow = U(ow);
    if (!pool_windows_tile(info, u))
        return kh * (1 + kw * (1 + kh * (1 + kw)));
    uint64_t rows = pool_cell_extent(U(h), oh, sh, U(pad_top));
    uint64_t cols = pool_cell_extent(U(w), ow, sw, U(pad_left));
    uint64_t spans = U(h) && U(w) ? ceil_div(oh * ow, U(h) * U(w)) : 1;
    return spans * (kh * (1 + kw) + rows * (1 + cols) + 1) - 1;
}

/* Loop iterations one item of a window kernel or its float16 twin runs (the nested
 * loops of its source), or 0 for the others: conv2d_grad_filter is launched in pieces
 * instead. */
static uint64_t window_loops(const tdm_kernel_info *info, const uint32_t *u)
{
    uint64_t kh = U(kh), kw = U(kw);
    switch (info->base) {
    case TDM_KERNEL_conv2d: return kh * (1 + kw * (1 + U(c)));
    case TDM_KERNEL_conv2d_grad_input: return kh * (1 + kw * (1 + U(oc)));
    case TDM_KERNEL_max_pool2d_grad: return max_pool_grad_loops(info, u);
    case TDM_KERNEL_max_pool2d:
    case TDM_KERNEL_avg_pool2d:
    case TDM_KERNEL_avg_pool2d_grad:
    case TDM_KERNEL_col2im: return kh * (1 + kw);
    default: return 0;
    }
}

/* The kernels whose loops take their count from the arguments: per item (a column,
 * or a row), `passes` loops over `length` elements; length and items are places in u. */
typedef struct row_loops {
    tdm_kernel kernel;
    unsigned length, items;
    unsigned passes;
} row_loops;

#define ROW_LOOPS(kernel, length, items, passes)                                                   \
    {                                                                                              \
        TDM_KERNEL_##kernel, TDM_UINT_AT(kernel, length), TDM_UINT_AT(kernel, items), passes       \
    }
static const row_loops row_kernels[] = {
    ROW_LOOPS(sum_axis0, rows, cols, 1),
    ROW_LOOPS(relu_bias_grad, rows, cols, 1),
    ROW_LOOPS(softmax_xent, cols, rows, 3),
    ROW_LOOPS(softmax_xent_soft, cols, rows, 4),
    ROW_LOOPS(layer_norm, cols, rows, 3),
    ROW_LOOPS(layer_norm_grad, cols, rows, 2),
    ROW_LOOPS(attention_softmax, cols, rows, 3),
    ROW_LOOPS(attention_softmax_grad, cols, rows, 2),
};
#undef ROW_LOOPS

/* lavapipe counts the iterations of all the loops of an invocation together (a
 * softmax or layer norm of one row ran right over 21000 columns, three loops of them,
 * and wrong over 22000), and an invocation takes the items of 4 lanes or more of a
 * group the core sized for 64: a group of few items loops as long as 16 budgets allow
 * over as many vectors as it fills (a column sum of 4 columns ran right over 60000 rows
 * and wrong over 70000). */
static tdm_status check_row_loops(const tdm_device *dev, const tdm_kernel_info *info,
                                  const tdm_kernel_call *call)
{
    const row_loops *k = NULL;
    for (size_t i = 0; i < sizeof row_kernels / sizeof row_kernels[0]; i++)
        k = row_kernels[i].kernel == info->base ? &row_kernels[i] : k;
    if (!dev->traits.max_loop_iterations || !k)
        return TDM_OK;
    uint64_t loops = k->passes * (uint64_t)call->u[k->length];
    uint64_t items = call->u[k->items];
    uint64_t in_group = items < info->wg ? items : info->wg, vectors = ceil_div(in_group, 4);
    uint64_t rounds = ceil_div(items, (uint64_t)TDM_KERNEL_MAX_GROUPS * info->wg);
    uint64_t total = (loops + 1) * rounds * vectors;
    if (total <= 16 * (uint64_t)dev->traits.max_loop_iterations)
        return TDM_OK;
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s: %s: %" PRIu64 " loop iterations a work-group, more than %s runs "
                    "right (%u: its driver ends longer loops early)",
                    F, info->name, total, dev->desc.id, 16 * dev->traits.max_loop_iterations);
}

/* conv2d_implicit and its input gradient sum over a window's channels (their
 * product's k, kh * kw * c or kh * kw * oc), which no piece can split: past
 * product_k_budget (some 128000 on lavapipe) the launch is refused. */
static tdm_status check_window_product(const tdm_device *dev, const tdm_kernel_info *info,
                                       const tdm_kernel_call *call)
{
    uint32_t m, n, k;
    tdm_kernel_product(info, call->u, &m, &n, &k);
    if (!dev->traits.max_loop_iterations || k <= product_k_budget(dev, info, call->u))
        return TDM_OK;
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s: %s: sums of %u products, more than %s's driver loops over (it ends "
                    "longer loops early)",
                    F, info->name, k, dev->desc.id);
}

/* Where the device's driver ends long loops early, a launch whose invocations would
 * loop longer is refused, not run into a wrong result. */
static tdm_status check_loops(const tdm_device *dev, const tdm_kernel_info *info,
                              const tdm_kernel_call *call)
{
    if (info->base == TDM_KERNEL_conv2d_implicit ||
        info->base == TDM_KERNEL_conv2d_implicit_bias_relu ||
        info->base == TDM_KERNEL_conv2d_implicit_grad_input)
        return check_window_product(dev, info, call);
    uint64_t loops = window_loops(info, call->u);
    if (!loops)
        return check_row_loops(dev, info, call);
    if (!dev->traits.max_loop_iterations || !loops)
        return TDM_OK;
    loops = (loops + 1) * rounds_of(info, call->u);
    if (loops <= dev->traits.max_loop_iterations)
        return TDM_OK;
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s: %s: %" PRIu64 " loop iterations an invocation, more than %s runs "
                    "right (%u: its driver ends longer loops early)",
                    F, info->name, loops, dev->desc.id, dev->traits.max_loop_iterations);
}

int tdm_kernel_supported(const tdm_device *dev, tdm_kernel kernel)
{
    return dev && kernel < TDM_KERNEL_COUNT && dev->ops->launch &&
           (!dev->ops->supports || dev->ops->supports(dev, dev->impl, kernel));
}

tdm_status tdm_kernel_run_as(tdm_device *dev, tdm_kernel_call call, tdm_dtype storage)
{
    tdm_kernel_store_as(&call, storage);
    return tdm_kernel_run(dev, &call);
}

tdm_status tdm_kernel_run(tdm_device *dev, const tdm_kernel_call *call)
{
    TDM_CHECK_ARG(dev, "tdm_kernel_run");
    TDM_CHECK_ARG(call, "tdm_kernel_run");
    const tdm_kernel_info *info = tdm_kernel_get(call->kernel);
    if (!info)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: no kernel %d", F, (int)call->kernel);
    tdm_status s = check_call(dev, info, call);
    if (s == TDM_OK)
        s = tdm_device_check_alive(dev, F);
    if (s != TDM_OK)
        return s;
    if (!tdm_kernel_supported(dev, call->kernel))
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s: the %s backend has no implementation "
                        "of it for %s",
                        F, info->name, tdm_backend_name(dev->desc.backend), dev->desc.id);
    s = check_loops(dev, info, call);
    if (s != TDM_OK)
        return s;
    tdm_launch l = make_launch(info, call);
    int fits =
        !dev->traits.max_binding_bytes || widest_range(info, l.u) <= dev->traits.max_binding_bytes;
    if (fits && (call->kernel == TDM_KERNEL_conv2d_grad_filter ||
                 call->kernel == TDM_KERNEL_conv2d_implicit_grad_filter ||
                 call->kernel == TDM_KERNEL_conv2d_implicit_grad_filter_bias))
        return launch_filter_gradient(dev, info, &l);
    if (fits && (call->kernel == TDM_KERNEL_gemm || call->kernel == TDM_KERNEL_gemm_f16))
        return launch_gemm(dev, info, &l);
    if (fits && call->kernel == TDM_KERNEL_gather_rows_grad)
        return launch_gather_gradient(dev, info, &l);
    if (fits && info->base == TDM_KERNEL_global_avg_pool)
        return launch_global_pool(dev, info, &l);
    if (fits)
        return launch_once(dev, info, &l);
    if (info->grid == TDM_GRID_N || info->grid == TDM_GRID_PAIRS || info->grid == TDM_GRID_CHUNKS)
        return launch_in_pieces(dev, info, &l);
    return tdm_fail(TDM_ERR_UNSUPPORTED,
                    "%s: %s: the call spans %" PRIu64 " bytes of one buffer, more than %s "
                    "binds at once (%" PRIu64 " bytes)",
                    F, info->name, widest_range(info, l.u), dev->desc.id,
                    dev->traits.max_binding_bytes);
}
