/* The public embedding operations: rows of a table looked up by int32 ids, and the
 * table's gradient summed in the ids' order, each a checked call of the table's
 * gather kernels. */
#include "device/error.h"
#include "device/kernel_args.h"
#include "device/tensor_impl.h"
#include "ops/ops_check.h"
#include "tandem/ops.h"

/* table is a matrix [vocab, dim] whose rows int32 ids reach: a negative id, huge as
 * the kernels' uint32, then lies past every row. */
static tdm_status check_table(const char *f, const char *what, const tdm_tensor *table)
{
    char got[64];
    if (table->shape.rank != 2)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: '%s' has shape %s, expected a matrix [vocab, dim]", f, what,
                        tdm_shape_format(&table->shape, got, sizeof got));
    if (table->shape.dims[0] > INT32_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: '%s' has %zu rows, more than int32 ids reach", f, what,
                        table->shape.dims[0]);
    return TDM_OK;
}

/* rows is [n, dim]: a row of the table's width for each of the n ids. */
static tdm_status check_rows(const char *f, const char *what, const tdm_tensor *rows,
                             const char *table_name, const tdm_tensor *table, size_t n)
{
    char got[64];
    size_t dim = table->shape.dims[1];
    if (rows->shape.rank != 2 || rows->shape.dims[0] != n || rows->shape.dims[1] != dim)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: '%s' has shape %s, expected [%zu, %zu]: a row of '%s' (%zu wide) "
                        "for each of the %zu ids",
                        f, what, tdm_shape_format(&rows->shape, got, sizeof got), n, dim,
                        table_name, dim, n);
    return TDM_OK;
}

tdm_status tdm_op_embedding_lookup(tdm_tensor *y, const tdm_tensor *table, const tdm_tensor *ids)
{
    const char *f = "tdm_op_embedding_lookup";
    tdm_status s = tdm_ops_check(f, "y", y, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "table", table, TDM_F32, y->device);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "ids", ids, TDM_I32, y->device);
    if (s == TDM_OK)
        s = check_table(f, "table", table);
    if (s == TDM_OK)
        s = check_rows(f, "y", y, "table", table, ids->count);
    if (s != TDM_OK || y->count == 0)
        return s;
    if (table->count == 0) /* every id lies outside an empty table */
        return tdm_op_fill(y, 0.0f);
    /* float rows move as 32-bit words: bit for bit */
    const tdm_gather_rows_args a = {.y = tdm_tensor_view(y),
                                    .x = tdm_tensor_view(table),
                                    .idx = tdm_tensor_view(ids),
                                    .rows = (uint32_t)ids->count,
                                    .cols = (uint32_t)table->shape.dims[1],
                                    .src_rows = (uint32_t)table->shape.dims[0]};
    tdm_kernel_call call = tdm_gather_rows_call(&a);
    return tdm_ops_run(f, y, &call);
}

tdm_status tdm_op_embedding_grad(tdm_tensor *dtable, const tdm_tensor *dy, const tdm_tensor *ids)
{
    const char *f = "tdm_op_embedding_grad";
    tdm_status s = tdm_ops_check(f, "dtable", dtable, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "dy", dy, TDM_F32, dtable->device);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "ids", ids, TDM_I32, dtable->device);
    if (s == TDM_OK)
        s = check_table(f, "dtable", dtable);
    if (s == TDM_OK)
        s = check_rows(f, "dy", dy, "dtable", dtable, ids->count);
    if (s != TDM_OK || dtable->count == 0)
        return s;
    /* The kernel adds to dtable: the gradient alone starts from zeros. */
    s = tdm_op_fill(dtable, 0.0f);
    if (s != TDM_OK || dy->count == 0)
        return s;
    /* The core launches the sums in pieces of rows, each continuing the last. */
    const tdm_gather_rows_grad_args a = {.dx = tdm_tensor_view(dtable),
                                         .dy = tdm_tensor_view(dy),
                                         .idx = tdm_tensor_view(ids),
                                         .rows = (uint32_t)ids->count,
                                         .cols = (uint32_t)dtable->shape.dims[1],
                                         .src_rows = (uint32_t)dtable->shape.dims[0]};
    tdm_kernel_call call = tdm_gather_rows_grad_call(&a);
    return tdm_ops_run(f, dtable, &call);
}
