/* Internal: the names of a checkpoint's records, unique, found by hash: the writer
 * refuses a repeated name, the reader looks tensors up by name. */
#ifndef TDM_TRAIN_CHECKPOINT_NAMES_H
#define TDM_TRAIN_CHECKPOINT_NAMES_H

#include <stddef.h>

typedef struct tdm_ckpt_names {
    char **names;   /* names[i]: the i-th name added, malloc'd */
    size_t count, capacity;
    size_t *slots;  /* open addressing: index + 1, 0 empty; slot_count a power of 2 */
    size_t slot_count;
} tdm_ckpt_names;

/* Index of name, or (size_t)-1. `len` is strlen(name) (names may come unterminated
 * from a file). */
size_t tdm_ckpt_names_find(const tdm_ckpt_names *t, const char *name, size_t len);

/* Adds a copy of name (len bytes, no NUL among them) as the next index. 0, or -1 out
 * of memory. The caller checks that it is new. */
int tdm_ckpt_names_add(tdm_ckpt_names *t, const char *name, size_t len);

void tdm_ckpt_names_free(tdm_ckpt_names *t);

#endif
