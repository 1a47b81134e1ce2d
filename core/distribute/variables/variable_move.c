/* A variable's copy moved into another tensor: the train op gathers the copies of
 * its variables side by side in one buffer per replica (docs/design/006), so that
 * one optimizer launch updates them all. */
#include "base/error.h"
#include "distribute/strategy_impl.h"
#include "distribute/variable_access.h"

tdm_status tdm_variable_move_copy(tdm_variable *var, size_t c, tdm_tensor *into)
{
    static const char func[] = "tdm_variable_move_copy";
    tdm_tensor *copy = var->copies[c];
    if (tdm_tensor_device(into) != tdm_tensor_device(copy) ||
        tdm_tensor_dtype(into) != var->dtype || tdm_tensor_count(into) != var->count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: copy %zu of variable '%s' takes %zu %s elements on its own device",
                        func, c, var->name, var->count, tdm_dtype_name(var->dtype));
    tdm_status s = tdm_tensor_copy(into, copy);
    if (s != TDM_OK)
        return tdm_fail_context(s, "%s: variable '%s'", func, var->name);
    /* The variable keeps its tensor, which callers may hold (tdm_variable_copy): it
     * takes into's memory, and into goes with the old buffer, released once the copy
     * out of it is done (tdm_buffer_free defers it). */
    tdm_tensor old = *copy;
    *copy = *into;
    *into = old;
    tdm_tensor_destroy(into);
    tdm_variable_wrote(var, c); /* the same bytes, in other memory */
    return TDM_OK;
}
