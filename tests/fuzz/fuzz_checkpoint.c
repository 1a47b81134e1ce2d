/* Fuzzes the checkpoint reader: opening verifies every record; an accepted file has
 * every record read back by its own dtype and shape. */
#include <stdlib.h>

#include "fuzz_input.h"
#include "tandem/tandem.h"

static void read_all(const tdm_checkpoint *c)
{
    for (size_t i = 0; i < tdm_checkpoint_count(c); i++) {
        const char *name = tdm_checkpoint_name(c, i);
        tdm_dtype dtype;
        tdm_shape shape;
        uint64_t value;
        if (tdm_checkpoint_tensor_shape(c, name, &dtype, &shape) != TDM_OK) {
            tdm_checkpoint_read_u64(c, name, &value);
            continue;
        }
        size_t bytes = tdm_shape_count(&shape) * 4;
        void *dst = bytes <= (1u << 24) ? malloc(bytes ? bytes : 1) : NULL;
        if (dst)
            tdm_checkpoint_read(c, name, dtype, &shape, dst, bytes);
        free(dst);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tdm_checkpoint *c = NULL;
    if (tdm_checkpoint_open(fuzz_file(0, data, size), &c) == TDM_OK)
        read_all(c);
    tdm_checkpoint_close(c);
    return 0;
}
