/* tdm_host.h on POSIX. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "platform/tdm_host.h"

int tdm_host_cores(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

uint64_t tdm_host_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

int tdm_host_is_terminal(FILE *stream)
{
    return isatty(fileno(stream));
}

int tdm_host_terminal_columns(FILE *stream)
{
    struct winsize ws;
    return ioctl(fileno(stream), TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

int tdm_host_program_path(char *path, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", path, size - 1); /* Linux */
    path[n > 0 ? n : 0] = '\0';
    return n > 0;
}

const char *tdm_host_program_name(void)
{
    return program_invocation_short_name; /* glibc */
}

void tdm_host_name(char *name, size_t size)
{
    if (gethostname(name, size - 1) != 0)
        snprintf(name, size, "?");
    name[size - 1] = '\0';
}

long tdm_host_process_id(void)
{
    return (long)getpid();
}

uint64_t tdm_host_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

double tdm_host_wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int tdm_host_utc(time_t t, struct tm *out)
{
    return gmtime_r(&t, out) != NULL;
}

void *tdm_host_aligned_alloc(size_t align, size_t size)
{
    return aligned_alloc(align, size);
}

void tdm_host_aligned_free(void *p)
{
    free(p);
}

void tdm_host_binary_stdio(void)
{
    /* POSIX streams write bytes as given */
}

void tdm_host_file_size_errors(void)
{
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, NULL);
}

int tdm_host_setenv(const char *name, const char *value, int overwrite)
{
    return setenv(name, value, overwrite);
}

int tdm_host_unsetenv(const char *name)
{
    return unsetenv(name);
}
