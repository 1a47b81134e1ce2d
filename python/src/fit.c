/* _tandem: training. A trainer is a model's optimizer and train op, kept from one fit
 * to the next as Keras keeps its optimizer; a fit session is one call's input (the
 * arrays as a shuffled, batched, repeated dataset distributed over the replicas),
 * step and monitor (with its checkpoints), run an epoch at a time by one call of the
 * monitor, as tandem train runs it. After each step the GIL is taken back to check
 * for signals, so Ctrl-C stops training after the step in progress. */
#include "pytandem.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { EVAL_ROWS = 512 };

typedef struct trainer {
    tdm_model *model;       /* borrowed: the trainer's handle keeps the model's alive */
    tdm_training *training; /* the optimizer and train op, assembled by the library */
    tdm_optimizer *optimizer;
    tdm_train_op *op;
} trainer;

static void destroy_trainer(void *p)
{
    trainer *t = p;
    tdm_training_destroy(t->training);
    free(t);
}

/* What compile() chose: the optimizer and its learning-rate schedule, and the train
 * op's options (mixed precision's loss scale, 0: none; clipping; the all-reduce's
 * dtype; balancing; whether the optimizer's state is sharded across the replicas). */
typedef struct trainer_args {
    const char *optimizer;
    const char *lr_kind; /* a name of tandem/lr_kinds.def */
    float lr, decay_rate, final_lr, loss_scale, clip_global_norm, clip_value;
    unsigned long long decay_steps, warmup_steps, seed;
    int shard, f16_all_reduce, balance;
    tdm_optimizer_options settings; /* the optimizer's own: momentum, betas, epsilon... */
} trainer_args;

/* The optimizer's options of a: its kind, and the rate as its schedule makes it. */
static tdm_status optimizer_options(const trainer_args *a, tdm_optimizer_options *oo)
{
    *oo = a->settings;
    tdm_status st = tdm_optimizer_kind_parse(a->optimizer, oo);
    tdm_lr_schedule *r = &oo->learning_rate;
    r->initial = a->lr;
    r->decay_rate = a->decay_rate;
    r->decay_steps = a->decay_steps;
    r->warmup_steps = a->warmup_steps;
    r->total_steps = a->decay_steps;
    r->final_rate = a->final_lr;
    if (st == TDM_OK)
        st = tdm_lr_kind_parse(a->lr_kind, &r->kind);
    return st == TDM_OK ? tdm_lr_schedule_check(r) : st;
}

/* The optimizer and train op over the model's variables, as tandem train's. */
static tdm_status trainer_make(tdm_strategy *s, tdm_model *m, const trainer_args *a, trainer *t)
{
    tdm_optimizer_options oo;
    tdm_status st = optimizer_options(a, &oo);
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.seed = a->seed;
    to.loss_scale = a->loss_scale;
    to.shard_optimizer = a->shard;
    to.clip_global_norm = a->clip_global_norm;
    to.clip_value = a->clip_value;
    to.all_reduce_dtype = a->f16_all_reduce ? TDM_F16 : TDM_F32;
    to.balance = a->balance;
    tdm_training_description d = TDM_TRAINING_DESCRIPTION_INIT;
    d.strategy = s;
    d.model = m;
    d.optimizer = &oo;
    d.train_op_options = &to;
    if (st == TDM_OK)
        st = tdm_training_create(&d, &t->training);
    t->optimizer = tdm_training_optimizer(t->training);
    t->op = tdm_training_train_op(t->training);
    return st;
}

/* The keywords of trainer_create and serve into a (NULL with an exception set on
 * failure). */
static int parse_trainer_args(PyObject *args, PyObject *kwargs, PyObject **model_handle,
                              PyObject **strategy_handle, trainer_args *a)
{
    static char *keywords[] = {
        "model",       "strategy",   "optimizer",        "lr",         "lr_kind",
        "decay_steps", "decay_rate", "warmup_steps",     "final_lr",   "loss_scale",
        "seed",        "shard",      "clip_global_norm", "clip_value", "f16_all_reduce",
        "balance",     "momentum",   "rho",              "centered",   "epsilon",
        "beta_1",      "beta_2",     "weight_decay",     "initial_accumulator", NULL};
    memset(a, 0, sizeof *a);
    a->settings = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_optimizer_options *o = &a->settings;
    return PyArg_ParseTupleAndKeywords(
               args, kwargs, "OOsfsKfKffKpffpp|ffpfffff", keywords, model_handle,
               strategy_handle, &a->optimizer, &a->lr, &a->lr_kind, &a->decay_steps,
               &a->decay_rate, &a->warmup_steps, &a->final_lr, &a->loss_scale, &a->seed,
               &a->shard, &a->clip_global_norm, &a->clip_value, &a->f16_all_reduce,
               &a->balance, &o->momentum, &o->rho, &o->centered, &o->epsilon, &o->beta1,
               &o->beta2, &o->weight_decay, &o->initial_accumulator)
               ? 0
               : -1;
}

/* trainer_create(model, strategy, optimizer=, lr=, lr_kind= (tdm_lr_kind's name), decay_steps=,
 * decay_rate=, warmup_steps=, final_lr=, loss_scale=, seed=, shard=, clip_global_norm=,
 * clip_value=, f16_all_reduce=, balance=), every argument given, then optionally the
 * optimizer's own settings (momentum=, rho=, centered=, epsilon=, beta_1=, beta_2=,
 * weight_decay=, initial_accumulator=; tdm_optimizer_options' defaults where not given):
 * the model must live on the strategy. */
PyObject *py_trainer_create(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    PyObject *model_handle, *strategy_handle;
    trainer_args a;
    if (parse_trainer_args(args, kwargs, &model_handle, &strategy_handle, &a) < 0)
        return NULL;
    tdm_model *m = handle_get(model_handle, "model");
    tdm_strategy *s = m ? handle_get(strategy_handle, "strategy") : NULL;
    if (!s)
        return NULL;
    trainer *t = calloc(1, sizeof *t);
    if (!t)
        return PyErr_NoMemory();
    t->model = m;
    tdm_status st;
    UNLOCKED(model_handle, st, trainer_make(s, m, &a, t));
    if (st != TDM_OK) {
        PyObject *error = raise_status(st);
        destroy_trainer(t);
        return error;
    }
    return handle_new(t, destroy_trainer, model_handle, "trainer");
}

static tdm_status serve(tdm_strategy *s, const trainer_args *a)
{
    tdm_optimizer_options oo;
    tdm_optimizer *optimizer = NULL;
    tdm_status st = optimizer_options(a, &oo);
    if (st == TDM_OK)
        st = tdm_optimizer_create(s, &oo, &optimizer);
    if (st == TDM_OK)
        st = tdm_optimizer_serve(optimizer);
    tdm_optimizer_destroy(optimizer);
    return st;
}

/* serve(model, strategy, the keywords of trainer_create): on a parameter server of a
 * job, keeps and updates the model's variables with that optimizer until every worker
 * has said goodbye. */
PyObject *py_serve(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    PyObject *model_handle, *strategy_handle;
    trainer_args a;
    if (parse_trainer_args(args, kwargs, &model_handle, &strategy_handle, &a) < 0)
        return NULL;
    tdm_strategy *s =
        handle_get(model_handle, "model") ? handle_get(strategy_handle, "strategy") : NULL;
    if (!s)
        return NULL;
    tdm_status st;
    UNLOCKED(model_handle, st, serve(s, &a));
    return none_or_raise(st);
}

/* One fit: its input, step and monitor, and what the monitor's progress callback
 * adds up over the epoch in progress. */
typedef struct session {
    tdm_model *model;
    tdm_dataset *train;    /* shuffled, batched, repeated */
    tdm_dataset *measured; /* the same examples in order, for each epoch's accuracy */
    tdm_training *run;     /* the step and monitor over the trainer's train op */
    tdm_monitor *monitor;
    size_t steps_per_epoch;
    uint64_t epochs_done;
    int epochs_recorded; /* the checkpoint restored said how many epochs were done */
    int checkpoints;     /* one at the end of every epoch */
    double loss_sum;     /* of the epoch's steps, each weighted by its count */
    size_t steps;
    PyObject *progress; /* fit_epoch's, during the call: None or a callable */
    int raised;         /* a signal handler or progress raised: the epoch stops */
} session;

static void destroy_session(void *p)
{
    session *f = p;
    tdm_training_destroy(f->run);
    tdm_dataset_destroy(f->train);
    tdm_dataset_destroy(f->measured);
    free(f);
}

/* Calls progress(step, steps per epoch, mean loss so far) where it is not None; -1 with
 * its exception when it raises. */
static int report(PyObject *progress, size_t step, const session *f)
{
    if (progress == Py_None)
        return 0;
    PyObject *r =
        PyObject_CallFunction(progress, "nnd", (Py_ssize_t)step, (Py_ssize_t)f->steps_per_epoch,
                              f->steps ? f->loss_sum / (double)f->steps : 0.0);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* After every step, on the thread of fit_epoch, which released the GIL: takes it back
 * to run Python's signal handlers (Ctrl-C) and the progress callback; either raising
 * stops the run after this step, the exception kept for fit_epoch to raise. */
static int on_step(const tdm_step_result *r, void *user)
{
    session *f = user;
    f->loss_sum += r->loss * (double)r->steps;
    f->steps += r->steps;
    PyGILState_STATE gil = PyGILState_Ensure();
    f->raised = PyErr_CheckSignals() < 0 || report(f->progress, f->steps, f) < 0;
    PyGILState_Release(gil);
    return f->raised;
}

/* Each checkpoint, written at the end of an epoch, records the epochs done: the
 * global step tells them only where this process's steps are all the job's (not in a
 * parameter-server job, whose global step counts every worker's; for the same reason
 * the checkpoints are not every so many global steps). */
static const char EPOCHS_DONE[] = "python/epochs_done";

static tdm_status save_epochs(tdm_checkpoint_writer *w, void *user)
{
    const session *f = user;
    return tdm_checkpoint_add_u64(w, EPOCHS_DONE, f->epochs_done);
}

/* A checkpoint without the record (written before it was kept) is read by its step. */
static tdm_status restore_epochs(const tdm_checkpoint *c, void *user)
{
    session *f = user;
    tdm_status st = tdm_checkpoint_read_u64(c, EPOCHS_DONE, &f->epochs_done);
    f->epochs_recorded = st == TDM_OK;
    return st == TDM_ERR_NOT_FOUND ? TDM_OK : st;
}

typedef struct fit_args {
    const void *x, *y;
    size_t rows, features, epochs, batch;
    labels_shape labels;
    uint64_t seed;
    int shuffle;                /* every epoch, from seed */
    const char *checkpoint_dir; /* NULL: none */
    int resume;
} fit_args;

/* The step of tandem train (tdm_single_loss_step), whose checkpoints hold the input
 * position, the global step, the weights and the optimizer's slots; checkpointed at
 * the end of every epoch where there is a directory, and restored from its newest
 * checkpoint on resume (*restored_step: the global step restored, else 0). */
static tdm_status session_make(tdm_strategy *s, trainer *t, const fit_args *a, session *f,
                               uint64_t *restored_step)
{
    tdm_status st =
        dataset_of(a->x, a->y, a->rows, a->features, &a->labels, EVAL_ROWS, &f->measured);
    if (st == TDM_OK)
        st = dataset_from(a->x, a->y, a->rows, a->features, &a->labels, &f->train);
    /* a parameter-server job's worker trains on its shard, as tandem train's does */
    size_t workers = tdm_strategy_num_workers(s);
    if (st == TDM_OK && tdm_strategy_num_parameter_servers(s) && workers > 1)
        st = tdm_dataset_shard(f->train, workers, tdm_strategy_worker_index(s));
    if (st == TDM_OK && a->shuffle)
        st = tdm_dataset_shuffle(f->train, a->seed);
    if (st == TDM_OK)
        st = tdm_dataset_batch(f->train, a->batch, 0);
    if (st == TDM_OK) {
        f->steps_per_epoch = tdm_dataset_batches_per_epoch(f->train);
        st = tdm_dataset_repeat(f->train, (int64_t)a->epochs);
    }
    tdm_monitor_options mo = TDM_MONITOR_OPTIONS_INIT;
    mo.progress = on_step;
    mo.progress_user = f;
    mo.checkpoint_dir = a->checkpoint_dir;
    f->checkpoints = a->checkpoint_dir != NULL;
    mo.strategy = tdm_strategy_num_workers(s) > 1 ? s : NULL; /* the chief's directory */
    mo.save_extra = save_epochs;
    mo.restore_extra = restore_epochs;
    mo.extra_user = f;
    tdm_training_description d = TDM_TRAINING_DESCRIPTION_INIT;
    d.train_op = t->op;
    d.dataset = f->train;
    d.monitor_options = &mo;
    if (st == TDM_OK)
        st = tdm_training_create(&d, &f->run);
    f->monitor = tdm_training_monitor(f->run);
    int restored = 0;
    *restored_step = 0;
    if (st == TDM_OK && a->resume)
        st = tdm_monitor_restore(f->monitor, &restored, restored_step);
    if (restored && !f->epochs_recorded)
        f->epochs_done = *restored_step / f->steps_per_epoch;
    return st;
}

/* fit_begin(trainer, strategy, x address, y address, rows, features, classes, targets,
 * width, epochs, batch, seed, shuffle, checkpoint_dir or None, resume) -> (a fit session,
 * steps per epoch, epochs already done by the checkpoint resumed): y int32 class indices
 * [rows, width] (width 1: one per example; more: one per position of the output) where
 * targets is 0, else float32 targets [rows, targets]. */
PyObject *py_fit_begin(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *trainer_handle, *strategy_handle, *x_obj, *y_obj;
    Py_ssize_t rows, features, classes, targets, width, epochs, batch;
    unsigned long long seed;
    fit_args a = {0};
    if (!PyArg_ParseTuple(args, "OOOOnnnnnnnKpzp", &trainer_handle, &strategy_handle, &x_obj,
                          &y_obj, &rows, &features, &classes, &targets, &width, &epochs, &batch,
                          &seed, &a.shuffle, &a.checkpoint_dir, &a.resume))
        return NULL;
    trainer *t = handle_get(trainer_handle, "trainer");
    tdm_strategy *s = t ? handle_get(strategy_handle, "strategy") : NULL;
    if (!s || parse_address(x_obj, (void **)&a.x) < 0 || parse_address(y_obj, (void **)&a.y) < 0)
        return NULL;
    if (rows < 1 || features < 1 || classes < 1 || targets < 0 || width < 1 || epochs < 1 ||
        batch < 1)
        return raise_invalid("fit: rows, epochs and batch_size must be at least 1");
    if (a.resume && !a.checkpoint_dir)
        return raise_invalid("fit: resume needs a checkpoint_dir");
    a.rows = (size_t)rows;
    a.features = (size_t)features;
    a.labels = (labels_shape){(size_t)classes, (size_t)targets, (size_t)width};
    a.epochs = (size_t)epochs;
    a.batch = (size_t)batch;
    a.seed = seed;
    session *f = calloc(1, sizeof *f);
    if (!f)
        return PyErr_NoMemory();
    f->model = t->model;
    tdm_status st;
    uint64_t restored = 0;
    UNLOCKED(trainer_handle, st, session_make(s, t, &a, f, &restored));
    if (st != TDM_OK) {
        PyObject *error = raise_status(st);
        destroy_session(f);
        return error;
    }
    PyObject *handle = handle_new(f, destroy_session, trainer_handle, "fit session");
    if (!handle)
        return NULL;
    return Py_BuildValue("NnK", handle, (Py_ssize_t)f->steps_per_epoch,
                         (unsigned long long)f->epochs_done);
}

/* The host's monotonic clock, in seconds. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* fit_epoch(session, progress) -> (mean training loss, the training examples' evaluation
 * after the epoch (evaluate's tuple: loss, accuracy, mae, rmse, r2), seconds of its
 * steps: from the first step's start to the last one's end, what tandem train reports
 * per epoch), or None once the input has ended; progress (or None) is called after
 * every step. */
PyObject *py_fit_epoch(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle, *progress;
    if (!PyArg_ParseTuple(args, "OO", &handle, &progress))
        return NULL;
    session *f = handle_get(handle, "fit session");
    if (!f)
        return NULL;
    f->loss_sum = 0.0;
    f->steps = 0;
    f->progress = progress;
    f->raised = 0;
    handle_enter(handle);
    tdm_status st;
    double start = now(), seconds = 0.0;
    Py_BEGIN_ALLOW_THREADS st = tdm_monitor_run_steps(f->monitor, f->steps_per_epoch, NULL);
    Py_END_ALLOW_THREADS if (f->raised)
    {
        handle_leave(handle); /* KeyboardInterrupt after the step, or progress's error */
        return NULL;
    }
    seconds = now() - start;
    tdm_evaluation ev = {0};
    if (st == TDM_OK && f->steps) {
        f->epochs_done++;
        Py_BEGIN_ALLOW_THREADS st = f->checkpoints ? tdm_monitor_save(f->monitor) : TDM_OK;
        if (st == TDM_OK)
            st = tdm_model_evaluate(f->model, f->measured, &ev);
        Py_END_ALLOW_THREADS
    }
    handle_leave(handle);
    if (st != TDM_OK)
        return raise_status(st);
    if (!f->steps)
        Py_RETURN_NONE;
    return Py_BuildValue("dNd", f->loss_sum / (double)f->steps, evaluation_tuple(&ev), seconds);
}

/* trainer_state(trainer) -> (bytes of optimizer slots one replica's device holds: every
 * slot, or with a sharded optimizer the replica's share; the dynamic loss scale, 1
 * without loss scaling; the steps it skipped for overflow; the learning rate of the
 * next step; replica 0's measured examples per second with balance, else 0). */
PyObject *py_trainer_state(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    trainer *t = handle_arg(args, "trainer", &handle);
    if (!t)
        return NULL;
    size_t bytes = 0;
    float scale = 1.0f;
    uint64_t skipped = 0;
    tdm_status st = tdm_train_op_slot_bytes(t->op, &bytes);
    if (st == TDM_OK)
        st = tdm_train_op_loss_scale(t->op, &scale, &skipped);
    double rate = 0.0;
    if (st == TDM_OK)
        st = tdm_train_op_replica_rate(t->op, 0, &rate);
    if (st != TDM_OK)
        return raise_status(st);
    return Py_BuildValue("ndKdd", (Py_ssize_t)bytes, (double)scale, (unsigned long long)skipped,
                         (double)tdm_optimizer_learning_rate(t->optimizer), rate);
}

/* trainer_set_learning_rate(trainer, rate): the constant rate of every later step. */
PyObject *py_trainer_set_learning_rate(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *handle;
    float rate;
    if (!PyArg_ParseTuple(args, "Of", &handle, &rate))
        return NULL;
    trainer *t = handle_get(handle, "trainer");
    if (!t)
        return NULL;
    tdm_status st = tdm_optimizer_set_learning_rate(t->optimizer, rate);
    if (st != TDM_OK)
        return raise_status(st);
    Py_RETURN_NONE;
}
