/* tandem: status codes and error messages. */
#ifndef TANDEM_STATUS_H
#define TANDEM_STATUS_H

/* Marks the public API: the shared library exports nothing else. */
#if defined(__GNUC__)
#define TDM_API __attribute__((visibility("default")))
#else
#define TDM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible tandem call returns one of these. TDM_OK is zero. */
typedef enum tdm_status {
    TDM_OK = 0,
    TDM_ERR_INVALID_ARGUMENT, /* a NULL handle, a size or offset out of range, ... */
    TDM_ERR_OUT_OF_MEMORY,    /* host or device memory exhausted, or over a limit */
    TDM_ERR_DEVICE_LOST,      /* the driver reported the device lost; it stays lost */
    TDM_ERR_UNSUPPORTED,      /* the device or build lacks what the call needs */
    TDM_ERR_NOT_FOUND,        /* no such device, backend or file */
    TDM_ERR_CORRUPT_DATA,     /* malformed input data or checkpoint */
    TDM_ERR_NUMERIC,          /* NaN or Inf where a finite value is required */
    TDM_ERR_TIMEOUT,          /* a wait ran past its limit */
    TDM_ERR_BACKEND,          /* the OpenCL or Vulkan driver failed a call */
    TDM_ERR_INVALID_STATE,    /* the call is not allowed in the current state */
    TDM_ERR_CANCELLED         /* stopped on request: tdm_monitor_cancel, a progress
                                 callback, or a replica that failed while others waited */
} tdm_status;

/* The status' name, e.g. "TDM_ERR_OUT_OF_MEMORY". Never NULL. */
TDM_API const char *tdm_status_str(tdm_status status);

/* The detailed message of the last failed tandem call made by the calling
 * thread ("" if none failed yet), like dlerror: one buffer per thread, so
 * replicas running on several threads never overwrite each other's message.
 * Valid until the next failing tandem call on this thread. */
TDM_API const char *tdm_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
