/* Diagnostics go to the context's callback, never to stdout or stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "device/context_impl.h"
#include "device/log.h"

void tdm_log(const tdm_context *ctx, tdm_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->options.log || level < ctx->options.log_level)
        return;
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    ctx->options.log(level, message, ctx->options.log_user_data);
}
