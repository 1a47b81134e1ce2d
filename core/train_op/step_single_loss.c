/* StandardSingleLossStep: an input step whose function is the train op; its
 * checkpoint state is the input position and the train op's state. */
#include <stdlib.h>

#include "base/error.h"
#include "train_op/step_impl.h"
#include "train_op/train_op_impl.h"

typedef struct single_loss_step {
    tdm_input_step input;
    tdm_distributed_dataset *dist;
    tdm_train_op *op;
} single_loss_step;

static tdm_status train(const tdm_distributed_batch *batch, void *self, double *loss)
{
    single_loss_step *st = self;
    tdm_train_op_note_input(st->op, st->input.waited[0], st->input.waited[1]);
    return tdm_train_op_run(st->op, batch, loss);
}

static tdm_status run(void *self, tdm_step_result *out)
{
    single_loss_step *st = self;
    tdm_status s = tdm_input_step_run(&st->input, out);
    out->global_step = tdm_train_op_global_step(st->op);
    return s;
}

static tdm_status save(void *self, tdm_checkpoint_writer *w)
{
    single_loss_step *st = self;
    tdm_status s = tdm_input_step_save(&st->input, w);
    return s == TDM_OK ? tdm_train_op_save(st->op, w) : s;
}

static tdm_status restore(void *self, const tdm_checkpoint *c)
{
    single_loss_step *st = self;
    tdm_status s = tdm_train_op_restore(st->op, c);
    return s == TDM_OK ? tdm_input_step_restore(&st->input, c) : s;
}

static void destroy(void *self)
{
    single_loss_step *st = self;
    tdm_input_step_free(&st->input);
    tdm_distributed_dataset_destroy(st->dist);
    free(st);
}

static tdm_status check_options(const tdm_single_loss_step_options *o)
{
    const char *f = "tdm_single_loss_step_create";
    if (o->size != sizeof *o)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: options.size is %zu, expected %zu: use "
                        "TDM_SINGLE_LOSS_STEP_OPTIONS_INIT",
                        f, o->size, sizeof *o);
    if (!o->train_op)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: a train op is required", f);
    if (!o->dataset == !o->dataset_fn)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: give either a dataset or a dataset function, not %s", f,
                        o->dataset ? "both" : "neither");
    return TDM_OK;
}

static tdm_status distribute(const tdm_single_loss_step_options *o, tdm_distributed_dataset **out)
{
    tdm_strategy *s = tdm_train_op_strategy(o->train_op);
    if (o->dataset)
        return tdm_distribute_dataset(s, o->dataset, &o->distribute, out);
    return tdm_distribute_datasets_from_function(s, o->dataset_fn, o->dataset_user, out);
}

tdm_status tdm_single_loss_step_create(const tdm_single_loss_step_options *opts, tdm_step **out)
{
    TDM_CHECK_ARG(out, "tdm_single_loss_step_create");
    *out = NULL;
    TDM_CHECK_ARG(opts, "tdm_single_loss_step_create");
    tdm_status s = check_options(opts);
    single_loss_step *st = s == TDM_OK ? calloc(1, sizeof *st) : NULL;
    if (s == TDM_OK && !st)
        s = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_single_loss_step_create: out of host memory");
    if (s != TDM_OK)
        return s;
    st->op = opts->train_op;
    s = distribute(opts, &st->dist);
    if (s == TDM_OK)
        s = tdm_input_step_init(&st->input, st->dist, train, st, opts->iterations_per_step);
    static const tdm_step_ops ops = {run, save, restore, destroy};
    if (s == TDM_OK)
        s = tdm_step_create(&ops, st, out);
    if (s == TDM_OK)
        tdm_step_set_train_op(*out, st->op);
    if (s != TDM_OK)
        destroy(st);
    return s;
}
