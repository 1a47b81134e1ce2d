/* Internal: diagnostics through the context's log callback; nothing prints. */
#ifndef TDM_CORE_LOG_H
#define TDM_CORE_LOG_H

#include "tandem/context.h"

void tdm_log(const tdm_context *ctx, tdm_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
