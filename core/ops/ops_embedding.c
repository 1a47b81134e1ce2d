/* The public embedding operations: rows of a table looked up by int32 ids, and the
 * table's gradient summed in the ids' order, each a checked call of the table's
 * gather kernels. */
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/memory/tensor_impl.h"
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

/* The operands of both ops: f32 rows [n, dim] (a row of the table for each id) and
 * table [vocab, dim], and n i32 ids, all on the device of `out`, which is rows or
 * table. */
static tdm_status check_operands(const char *f, const tdm_tensor *out, const char *rows_name,
                                 const tdm_tensor *rows, const char *table_name,
                                 const tdm_tensor *table, const tdm_tensor *ids)
{
    int rows_out = out == rows;
    tdm_status s = tdm_ops_check(f, rows_out ? rows_name : table_name, out, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, rows_out ? table_name : rows_name, rows_out ? table : rows, TDM_F32,
                          out->device);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "ids", ids, TDM_I32, out->device);
    if (s == TDM_OK)
        s = check_table(f, table_name, table);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, rows_name, rows, ids->count, table->shape.dims[1]);
    return s;
}

tdm_status tdm_op_embedding_lookup(tdm_tensor *y, const tdm_tensor *table, const tdm_tensor *ids)
{
    const char *f = "tdm_op_embedding_lookup";
    tdm_status s = check_operands(f, y, "y", y, "table", table, ids);
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
    tdm_status s = check_operands(f, dtable, "dy", dy, "dtable", dtable, ids);
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
