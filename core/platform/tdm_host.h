/* Internal: what tandem asks of the host it runs on: its cores and memory, whether a
 * stream is a terminal and its width, the program's path, the process id and a
 * monotonic and the wall clocks (posix/host.c; Win32's GetActiveProcessorCount,
 * GlobalMemoryStatusEx, _isatty, GetConsoleScreenBufferInfo, GetModuleFileNameW,
 * GetCurrentProcessId, QueryPerformanceCounter and GetSystemTimeAsFileTime fit the same
 * calls). */
#ifndef TDM_PLATFORM_HOST_H
#define TDM_PLATFORM_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The cores online, at least 1. */
int tdm_host_cores(void);

/* The host's physical memory in bytes; 0 when the system does not say. */
uint64_t tdm_host_memory_bytes(void);

/* Whether the stream is a terminal. */
int tdm_host_is_terminal(FILE *stream);

/* The terminal's width in columns; 0 when the stream is no terminal or it does not say. */
int tdm_host_terminal_columns(FILE *stream);

/* The path of the running program into path; 0 when the system does not say ("" then). */
int tdm_host_program_path(char *path, size_t size);

/* The running program's name ("tandem"). */
const char *tdm_host_program_name(void);

/* This machine's name into name; "?" when the system does not say. */
void tdm_host_name(char *name, size_t size);

/* This process's id. */
long tdm_host_process_id(void);

/* Nanoseconds since an arbitrary start, never going back (wall-clock steps, NTP or a
 * user's date, never skew a measure). */
uint64_t tdm_host_now_ns(void);

/* Seconds since the Unix epoch by the system's wall clock, with its fraction: the
 * time stamp other programs read (TensorBoard's events), which may step back. */
double tdm_host_wall_seconds(void);

/* t as UTC into *out: 1, or 0 when the system cannot say (gmtime_r, gmtime_s). */
int tdm_host_utc(time_t t, struct tm *out);

/* size bytes aligned to align (a power of two), freed by tdm_host_aligned_free alone
 * (Win32's C runtime has no aligned_alloc, and its _aligned_malloc's memory needs
 * _aligned_free); NULL when there is no memory. */
void *tdm_host_aligned_alloc(size_t align, size_t size);
void tdm_host_aligned_free(void *p);

/* Makes stdout and stderr write bytes as given: Windows' C library would write "\r\n"
 * for each "\n", and the CLI's output would differ from the Linux build's. */
void tdm_host_binary_stdio(void);

/* For programs, not the library: a write past the process's file-size limit
 * (`ulimit -f`) fails with EFBIG, which the writer reports and recovers from, rather
 * than ending the process by SIGXFSZ with no word and temporary files left behind
 * (Windows has no such signal). */
void tdm_host_file_size_errors(void);

/* Sets the environment variable name to value, keeping one already set unless
 * overwrite: 0, or -1 with errno set. */
int tdm_host_setenv(const char *name, const char *value, int overwrite);
/* Removes it: 0, or -1 with errno set. */
int tdm_host_unsetenv(const char *name);

#endif
