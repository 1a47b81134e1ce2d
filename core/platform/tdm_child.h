/* Internal: a child process whose standard output the parent reads through a pipe,
 * with a time limit, and whose end it can force and describe: what lets a tool run
 * work that may crash or hang (a driver's) apart from itself and report it
 * (`tandem conformance`'s workers, docs/design/012-conformance-that-survives.md). */
#ifndef TDM_PLATFORM_CHILD_H
#define TDM_PLATFORM_CHILD_H

#include <stddef.h>
#include <stdio.h>

typedef struct tdm_child tdm_child;

/* Starts the program at path with argv (argv[0] its name, NULL after the last), the
 * environment of this process plus `env_name=env_value` (env_name may be NULL), its
 * standard output a pipe this process reads, its standard input and error this
 * process's. 0 and *out, or -1 with why in err. */
int tdm_child_start(const char *path, const char *const *argv, const char *env_name,
                    const char *env_value, tdm_child **out, char *err, size_t err_size);

/* Reads what the child wrote, at most size bytes, waiting at most timeout_ms: the
 * bytes read, 0 at the end of its output (it closed it or ended), -1 on an error,
 * -2 when nothing came in time. */
long tdm_child_read(tdm_child *child, void *buf, size_t size, int timeout_ms);

/* Ends the child at once (SIGKILL; TerminateProcess). */
void tdm_child_kill(tdm_child *child);

/* Waits for the child to end and frees it: 0 where it exited with status 0, else 1
 * with how it ended in `ended` ("SIGSEGV", "exit status 3", "0xC0000005
 * (exception: access violation)"). */
int tdm_child_wait(tdm_child *child, char *ended, size_t ended_size);

/* In a child: a crash ends the process at once with its code, as the parent needs to
 * see it, rather than opening a dialog that waits for a user (Windows' error
 * reporting, Wine's debugger; POSIX has none). */
void tdm_child_crash_quietly(void);

/* In a child: its standard output, moved aside as a stream of its own for the
 * parent's records, with the process's standard output pointed at its standard error
 * from then on, so that a library's stray output cannot mix with the records. NULL
 * on failure. */
FILE *tdm_child_take_stdout(void);

#endif
