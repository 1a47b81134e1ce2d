/* tandem: the context, which owns backends, devices and the log callback. */
#ifndef TANDEM_CONTEXT_H
#define TANDEM_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "tandem/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_context tdm_context;

/* Backends, as bits of tdm_context_options.backends. */
typedef enum tdm_backend_kind {
    TDM_BACKEND_REFERENCE = 0, /* plain C on the host: the oracle, always built */
    TDM_BACKEND_OPENCL = 1,
    TDM_BACKEND_VULKAN = 2
} tdm_backend_kind;

#define TDM_BACKEND_BIT(kind) (1u << (kind))
#define TDM_BACKENDS_ALL 0xFFu

typedef enum tdm_log_level {
    TDM_LOG_DEBUG = 0,
    TDM_LOG_INFO = 1,
    TDM_LOG_WARN = 2,
    TDM_LOG_ERROR = 3
} tdm_log_level;

/* Receives the library's diagnostics; tandem itself never prints.
 * May be called from any thread that calls into the context. */
typedef void (*tdm_log_fn)(tdm_log_level level, const char *message, void *user_data);

typedef struct tdm_context_options {
    size_t size;                /* sizeof(tdm_context_options): set by the INIT macro */
    uint32_t backends;          /* TDM_BACKEND_BIT mask; default TDM_BACKENDS_ALL */
    tdm_log_fn log;             /* optional; NULL discards diagnostics */
    void *log_user_data;        /* passed to log */
    tdm_log_level log_level;    /* least severe level passed to log; default WARN */
    int vulkan_validation;      /* 1: enable the Khronos validation layer and report its
                                   messages as errors; 0: off; -1 (default): follow the
                                   environment variable TDM_VK_VALIDATION=1 */
} tdm_context_options;

#define TDM_CONTEXT_OPTIONS_INIT                                                       \
    {                                                                                  \
        .size = sizeof(tdm_context_options), .backends = TDM_BACKENDS_ALL,            \
        .log_level = TDM_LOG_WARN, .vulkan_validation = -1                             \
    }

/* Creates a context: initialises the requested backends that this build has and
 * opens every device they expose. A backend that is built but finds no driver, or
 * not even its loader library (libOpenCL.so.1, libvulkan.so.1), contributes no
 * devices (logged at INFO, and told by tdm_context_backend_status), which is not an
 * error. opts may be NULL for the defaults. */
TDM_API tdm_status tdm_context_create(const tdm_context_options *opts, tdm_context **out);

/* Releases the context, its devices and every buffer still allocated. NULL-safe. */
TDM_API void tdm_context_destroy(tdm_context *ctx);

/* Number of validation-layer messages seen so far (0 unless validation is on). */
TDM_API size_t tdm_context_validation_messages(const tdm_context *ctx);

/* Whether the backend is usable in ctx, and why not. *status is TDM_OK when it
 * loaded (its devices are in the context, possibly none); TDM_ERR_UNSUPPORTED when
 * this build lacks it; TDM_ERR_NOT_FOUND when its loader library or any driver is
 * missing, or opts->backends left it out; else the error that loading it met.
 * *message (message may be NULL) says what was loaded, e.g. the library's path and,
 * for OpenCL, whether gemm has CLBlast (libclblast.so.1), or why it was not; it
 * lives as long as ctx. TDM_ERR_INVALID_ARGUMENT for a NULL ctx or status or an
 * unknown kind. */
TDM_API tdm_status tdm_context_backend_status(const tdm_context *ctx, tdm_backend_kind kind,
                                              tdm_status *status, const char **message);

/* Whether this build of tandem includes the backend. */
TDM_API int tdm_backend_built(tdm_backend_kind kind);

/* "reference", "opencl" or "vulkan". */
TDM_API const char *tdm_backend_name(tdm_backend_kind kind);

#ifdef __cplusplus
}
#endif
#endif
