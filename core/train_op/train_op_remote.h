/* Internal: a parameter-server job's worker as its two files share it: the servers
 * it talks to (train_op_remote.c: joining, pushing, goodbye) and the requests and
 * answers that the checkpoint state (train_op_remote_state.c) reuses. */
#ifndef TDM_TRAIN_TRAIN_OP_REMOTE_H
#define TDM_TRAIN_TRAIN_OP_REMOTE_H

#include "ps/ps_protocol.h"
#include "train_op/train_op_impl.h"

typedef struct remote_server {
    size_t rank;
    size_t *vars; /* indices into op->vars */
    size_t count, floats;
} remote_server;

struct tdm_train_remote {
    remote_server *servers;
    size_t server_count;
    size_t failed;      /* the server whose hello failed (refused, or no answer), which
                           expects no goodbye; SIZE_MAX: none. Every other one does: a
                           server that was never greeted waits for this worker too, and
                           with pushes in turn holds every other worker's meanwhile */
    float *flat;        /* replica 0's gradients on the host, [total + 1] */
    unsigned char *out; /* the request being built */
    size_t out_bytes;
    float *state;        /* the servers' variables and slots for a checkpoint: variable
                          * v's value and its slots from (slots + 1) * offsets[v] */
    uint64_t state_step; /* the global step they are of */
    int fetched;         /* whether state waits for tdm_train_op_save */
};

/* A request of `bytes` in r->out, zeroed, with its header: its body, or NULL (the
 * error set) without memory. */
void *tdm_train_remote_request(tdm_train_remote *r, uint32_t kind, size_t count, uint64_t step,
                               size_t bytes, const char *func);

/* The request built in r->out to the server. */
tdm_status tdm_train_remote_send(const tdm_train_op *op, const remote_server *sv, size_t bytes,
                                 const char *func);

/* The server's answer of `kind` with a body of body_bytes: its header and body (the
 * transport's, valid until the next message); ERROR is the server's refusal. */
tdm_status tdm_train_remote_answer(const tdm_train_op *op, const remote_server *sv, uint32_t kind,
                                   size_t body_bytes, tdm_ps_header *h, const unsigned char **body,
                                   const char *func);

/* The server's VALUES, written into every local copy, with the global step. */
tdm_status tdm_train_remote_take_values(const tdm_train_op *op, const remote_server *sv,
                                        uint64_t *step, const char *func);

#endif
