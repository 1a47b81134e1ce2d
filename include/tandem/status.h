/* tandem: status codes and error messages. */
#ifndef TANDEM_STATUS_H
#define TANDEM_STATUS_H

/* Marks the public API: the shared library exports nothing else. On Windows the
 * library's own build exports it from tandem.dll; a program's calls need no mark, as
 * the import library resolves them. */
#if defined(_WIN32)
#if defined(TDM_BUILDING_TANDEM)
#define TDM_API __declspec(dllexport)
#else
#define TDM_API
#endif
#elif defined(__GNUC__)
#define TDM_API __attribute__((visibility("default")))
#else
#define TDM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible tandem call returns one of these (tandem/status.def lists them
 * with their values and meanings). TDM_OK is zero. */
typedef enum tdm_status {
#define TDM_STATUS(name, value, description) name = value,
#include "tandem/status.def"
#undef TDM_STATUS
} tdm_status;

/* The status' name, e.g. "TDM_ERR_OUT_OF_MEMORY". Never NULL. */
TDM_API const char *tdm_status_str(tdm_status status);

/* What the status means, e.g. "no such device, backend or file". Never NULL. */
TDM_API const char *tdm_status_description(tdm_status status);

/* The detailed message of the last failed tandem call made by the calling
 * thread ("" if none failed yet), like dlerror: one buffer per thread, so
 * replicas running on several threads never overwrite each other's message.
 * The first cause stays first: what fails while tandem handles a failure
 * (resynchronising copies after a failed step, saying goodbye to a job's other
 * processes) is appended after "; then: ". Valid until the next failing tandem call
 * on this thread. */
TDM_API const char *tdm_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
