/* Internal: a parameter server's state, as the service (ps_serve.c) and its view of
 * the workers' comings, goings and silences (ps_workers.c) share it. */
#ifndef TDM_TRAIN_PS_SERVER_H
#define TDM_TRAIN_PS_SERVER_H

#include "optimizer/optimizer_impl.h"
#include "ps/ps_protocol.h"

/* What the server holds for one worker: its variables in the worker's order, and
 * their gradient buffers (the server's, shared by every worker). */
typedef struct client {
    tdm_variable **vars;
    tdm_tensor **grads;
    size_t count, floats;
    int joined, gone;
    uint64_t pushed;     /* pushes applied */
    unsigned char *held; /* a push past the step of the save under way, answered after it */
    size_t held_size;
    double contact; /* when the worker was last heard from or answered (tdm_seconds) */
} client;

#define NO_SAVE SIZE_MAX

typedef struct server {
    tdm_optimizer *opt;
    tdm_strategy *strategy;
    tdm_variable **vars; /* the strategy's trainable variables */
    tdm_tensor **grads;  /* [var_count]: a gradient buffer each, made on first use */
    size_t var_count;
    client *clients; /* [workers]: the worker ranks come first */
    size_t workers, left;
    int ordered; /* pushes in turn (tdm_strategy_options.ordered_pushes) */
    size_t turn; /* ordered: the worker whose push is applied next */
    uint64_t pushes;
    const char *slot_names[TDM_OPT_MAX_SLOTS];
    size_t slots;
    size_t saver;       /* the worker waiting for STATE, or NO_SAVE */
    uint64_t *target;   /* [workers]: the pushes of each that the save waits for */
    unsigned char *out; /* the answer being built */
    size_t out_bytes;
    double timeout_s; /* the job's deadline: a worker silent past it is lost */
    int tolerate;     /* a lost worker other than the chief is dropped */
    char lost[512];   /* the job stops: why, told to every worker that asks; "" */
} server;

/* sv->out's first `bytes` to worker `to`, answering its request: a worker that does
 * not take it is lost (tdm_ps_lose). */
tdm_status tdm_ps_answer(server *sv, size_t to, size_t bytes);

/* ERROR to worker `to`: why its request is refused. */
tdm_status tdm_ps_send_error(server *sv, size_t to, const char *text);

/* Ordered: the turn passes to the next worker still training. */
void tdm_ps_pass_turn(server *sv);

/* Worker w is done (its goodbye, a refusal, or lost): never waited for again. */
void tdm_ps_leave(server *sv, size_t w);

/* Worker w is lost (`what` says how: "nothing from it", within waited_s): dropped, or
 * the job stops (sv->lost says why) and every worker waiting for an answer is told
 * now. */
tdm_status tdm_ps_lose(server *sv, size_t w, const char *what, double waited_s);

/* The workers silent past the deadline that owe a message (neither gone nor waiting
 * for an answer): each is dropped (tolerated), or the job stops: sv->lost says why,
 * and every worker waiting for an answer is told so now. *wait: how long to wait for
 * the next message before looking again. */
tdm_status tdm_ps_watch_workers(server *sv, double *wait);

/* Once the job stops: worker w's request answered with why, and w gone. */
tdm_status tdm_ps_refuse_lost(server *sv, size_t w);

#endif
