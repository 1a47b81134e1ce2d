/* StandardInputStep: an iterator over a distributed dataset, one batch per step;
 * the input position is its checkpoint state. */
#include <stdlib.h>

#include "base/clock.h"
#include "base/error.h"
#include "train_op/step_impl.h"

tdm_status tdm_input_step_init(tdm_input_step *in, const tdm_distributed_dataset *dist,
                               tdm_input_step_fn fn, void *user, size_t iterations)
{
    *in = (tdm_input_step){.fn = fn, .user = user, .iterations = iterations ? iterations : 1};
    return tdm_distributed_iterator_create(dist, &in->it);
}

void tdm_input_step_free(tdm_input_step *in)
{
    tdm_distributed_iterator_destroy(in->it);
    in->it = NULL;
}

tdm_status tdm_input_step_run(void *self, tdm_step_result *out)
{
    tdm_input_step *in = self;
    double loss_sum = 0.0;
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < in->iterations && s == TDM_OK && !out->end_of_input; i++) {
        const tdm_distributed_batch *b = NULL;
        in->waited[0] = tdm_seconds();
        s = tdm_distributed_iterator_next(in->it, &b);
        in->waited[1] = tdm_seconds();
        if (s != TDM_OK || b->global_batch_size == 0) {
            out->end_of_input = s == TDM_OK;
            break;
        }
        double loss = 0.0;
        s = in->fn(b, in->user, &loss);
        if (s == TDM_OK) {
            loss_sum += loss;
            out->steps++;
            out->examples += b->global_batch_size;
            out->epoch = b->epoch;
            in->steps++;
        }
    }
    out->loss = out->steps ? loss_sum / (double)out->steps : 0.0;
    out->global_step = in->steps;
    return s;
}

tdm_status tdm_input_step_save(void *self, tdm_checkpoint_writer *w)
{
    tdm_input_step *in = self;
    tdm_dataset_position pos;
    tdm_status s = tdm_distributed_iterator_position(in->it, &pos);
    if (s == TDM_OK)
        s = tdm_checkpoint_add_u64(w, "input/epoch", pos.epoch);
    if (s == TDM_OK)
        s = tdm_checkpoint_add_u64(w, "input/batch", pos.batch);
    if (s == TDM_OK)
        s = tdm_checkpoint_add_u64(w, TDM_RECORD_INPUT_STEPS, in->steps);
    return s;
}

tdm_status tdm_input_step_restore(void *self, const tdm_checkpoint *c)
{
    tdm_input_step *in = self;
    tdm_dataset_position pos;
    uint64_t steps = 0;
    tdm_status s = tdm_checkpoint_read_u64(c, "input/epoch", &pos.epoch);
    if (s == TDM_OK)
        s = tdm_checkpoint_read_u64(c, "input/batch", &pos.batch);
    if (s == TDM_OK)
        s = tdm_checkpoint_read_u64(c, TDM_RECORD_INPUT_STEPS, &steps);
    if (s == TDM_OK)
        s = tdm_distributed_iterator_seek(in->it, &pos);
    if (s == TDM_OK)
        in->steps = steps;
    return s;
}

static void destroy(void *self)
{
    tdm_input_step_free(self);
    free(self);
}

tdm_status tdm_standard_input_step_create(const tdm_distributed_dataset *dist, tdm_input_step_fn fn,
                                          void *user, size_t iterations_per_step, tdm_step **out)
{
    TDM_CHECK_ARG(out, "tdm_standard_input_step_create");
    *out = NULL;
    TDM_CHECK_ARG(dist, "tdm_standard_input_step_create");
    TDM_CHECK_ARG(fn, "tdm_standard_input_step_create");
    tdm_input_step *in = malloc(sizeof *in);
    if (!in)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_standard_input_step_create: out of memory");
    tdm_status s = tdm_input_step_init(in, dist, fn, user, iterations_per_step);
    static const tdm_step_ops ops = {tdm_input_step_run, tdm_input_step_save,
                                     tdm_input_step_restore, destroy};
    if (s == TDM_OK)
        s = tdm_step_create(&ops, in, out);
    if (s != TDM_OK)
        destroy(in);
    return s;
}
