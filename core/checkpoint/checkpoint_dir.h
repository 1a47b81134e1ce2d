/* Internal: the checkpoints of a directory one by one, for the monitor's restore,
 * which must see the damaged ones that tdm_checkpoint_latest passes over. */
#ifndef TDM_TRAIN_CHECKPOINT_DIR_H
#define TDM_TRAIN_CHECKPOINT_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "checkpoint/checkpoint_format.h"
#include "tandem/status.h"

typedef struct tdm_ckpt_found {
    uint64_t step; /* from the name */
    char name[TDM_CKPT_FINAL_NAME_LEN + 1];
} tdm_ckpt_found;

/* The entries of dir under final names, complete or not, newest first: *found is
 * malloc'd (NULL when there are none). A missing dir: TDM_ERR_NOT_FOUND. */
tdm_status tdm_ckpt_list_final(const char *dir, const char *func, tdm_ckpt_found **found,
                               size_t *count);

/* What the first and last bytes of a file under the final name of `step` say. */
typedef enum tdm_ckpt_state {
    TDM_CKPT_COMPLETE,  /* header of that step and footer valid, the size recorded */
    TDM_CKPT_NEWER,     /* a newer format version: this build cannot judge it */
    TDM_CKPT_INCOMPLETE /* anything else: truncated, damaged, no regular file */
} tdm_ckpt_state;
tdm_ckpt_state tdm_ckpt_file_state(const char *path, uint64_t step);

#endif
