/* The distribution model on one page: a mirrored strategy over the default devices,
 * one global batch split into per-replica slices, a replica function, Strategy.reduce
 * with the true element count, and a mirrored variable written from the replicas.
 *
 *   cc mirrored_sum.c $(pkg-config --cflags --libs tandem) && ./a.out
 *
 * prints the sum of 2x over x = 0..9 (90) and its mean (9), whatever the number of
 * replicas, and a step counter that the replicas advanced once, not once each. */
#include <stdio.h>
#include <tandem/tandem.h>

#define TRY(call)                                                                      \
    do {                                                                               \
        if ((call) != TDM_OK) {                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, tdm_last_error());               \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

/* Runs once per replica, on the replica's own thread and device. */
static tdm_status double_slice(tdm_replica_context *rc, void *user_data)
{
    tdm_variable *steps = user_data;
    tdm_tensor *x = tdm_replica_arg(rc, 0), *y = NULL; /* this replica's rows */
    tdm_shape shape = tdm_tensor_shape(x);
    tdm_status s = tdm_tensor_create(tdm_replica_device(rc), TDM_F32, &shape, &y);
    if (s == TDM_OK)
        s = tdm_op_scale(y, x, 2.0f);
    if (s == TDM_OK)
        s = tdm_replica_set_result(rc, y); /* the run's result takes y over */
    else
        tdm_tensor_destroy(y);
    /* Every replica adds 1; ONLY_FIRST_REPLICA aggregation makes it one step. */
    const float one = 1.0f;
    return s == TDM_OK ? tdm_variable_assign_host(steps, TDM_ASSIGN_ADD, &one, sizeof one) : s;
}

/* Splits x = 0..9 over the replicas in order: 10 = 5 + 5 on two, 4 + 3 + 3 on three. */
static int split_batch(tdm_strategy *s, tdm_value **out)
{
    size_t n = tdm_strategy_num_replicas(s), first = 0;
    tdm_tensor *slices[16];
    for (size_t i = 0; i < n && i < 16; i++) {
        size_t rows = 10 / n + (i < 10 % n);
        float x[10];
        for (size_t r = 0; r < rows; r++)
            x[r] = (float)(first + r);
        TRY(tdm_tensor_create(tdm_strategy_device(s, i), TDM_F32, &TDM_SHAPE(rows), &slices[i]));
        TRY(tdm_tensor_write(slices[i], x, rows * sizeof *x));
        first += rows;
    }
    TRY(tdm_value_create(TDM_VALUE_PER_REPLICA, slices, n, out));
    return 0;
}

int main(void)
{
    tdm_context *ctx;
    tdm_strategy *s;
    tdm_variable *steps;
    tdm_value *batch, *doubled;
    tdm_tensor *sum, *mean;
    TRY(tdm_context_create(NULL, &ctx));
    TRY(tdm_strategy_create_mirrored(ctx, NULL, 0, NULL, &s)); /* the default devices */
    TRY(tdm_strategy_scope_enter(s));
    tdm_variable_options vo = TDM_VARIABLE_OPTIONS_INIT;
    vo.name = "steps";
    vo.aggregation = TDM_AGG_ONLY_FIRST_REPLICA;
    TRY(tdm_variable_create(s, &vo, &steps));
    if (split_batch(s, &batch))
        return 1;
    TRY(tdm_strategy_run(s, double_slice, steps, &batch, 1, &doubled));
    TRY(tdm_strategy_reduce(s, TDM_REDUCE_SUM, doubled, 0, &sum));
    TRY(tdm_strategy_reduce(s, TDM_REDUCE_MEAN, doubled, 0, &mean)); /* divides by 10 */
    float total, average, step;
    TRY(tdm_tensor_read(sum, &total, sizeof total));
    TRY(tdm_tensor_read(mean, &average, sizeof average));
    TRY(tdm_variable_read(steps, &step, sizeof step));
    printf("%zu replicas: sum %g, mean %g, steps %g\n", tdm_strategy_num_replicas(s),
           (double)total, (double)average, (double)step);
    tdm_tensor_destroy(sum);
    tdm_tensor_destroy(mean);
    tdm_value_destroy(doubled);
    tdm_value_destroy(batch);
    TRY(tdm_strategy_scope_exit(s));
    tdm_strategy_destroy(s); /* and its variables */
    tdm_context_destroy(ctx);
    return total == 90.0f && average == 9.0f && step == 1.0f ? 0 : 1;
}
