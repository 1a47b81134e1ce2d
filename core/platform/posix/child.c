/* tdm_child.h on POSIX: posix_spawn with the child's standard output on a pipe,
 * poll for the time limit, waitpid for how it ended. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/tdm_child.h"

extern char **environ;

struct tdm_child {
    pid_t pid;
    int out; /* the pipe's reading end */
};

/* This process's environment with name=value put in (replacing one of that name). */
static char **environment_with(const char *name, const char *value, char **entry)
{
    size_t count = 0, length = name ? strlen(name) : 0;
    while (environ[count])
        count++;
    char **env = calloc(count + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (!name || strncmp(environ[i], name, length) != 0 || environ[i][length] != '=')
            env[n++] = environ[i];
    if (name) {
        *entry = malloc(length + strlen(value) + 2);
        if (!*entry) {
            free(env);
            return NULL;
        }
        sprintf(*entry, "%s=%s", name, value);
        env[n++] = *entry;
    }
    env[n] = NULL;
    return env;
}

int tdm_child_start(const char *path, const char *const *argv, const char *env_name,
                    const char *env_value, tdm_child **out, char *err, size_t err_size)
{
    *out = NULL;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, err_size, "no pipe: %s", strerror(errno));
        return -1;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC); /* the child keeps only its end */
    char *entry = NULL;
    char **env = environment_with(env_name, env_value, &entry);
    posix_spawn_file_actions_t actions;
    int rc = env ? posix_spawn_file_actions_init(&actions) : ENOMEM;
    if (rc == 0) {
        rc = posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
        if (rc == 0)
            rc = posix_spawn_file_actions_addclose(&actions, fds[1]);
        pid_t pid = 0;
        if (rc == 0)
            rc = posix_spawn(&pid, path, &actions, NULL, (char *const *)argv, env);
        posix_spawn_file_actions_destroy(&actions);
        if (rc == 0) {
            tdm_child *child = malloc(sizeof *child);
            if (child) {
                child->pid = pid;
                child->out = fds[0];
                *out = child;
            } else {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
                rc = ENOMEM;
            }
        }
    }
    free(env);
    free(entry);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        snprintf(err, err_size, "cannot start %s: %s", path, strerror(rc));
        return -1;
    }
    return 0;
}

long tdm_child_read(tdm_child *child, void *buf, size_t size, int timeout_ms)
{
    struct pollfd p = {.fd = child->out, .events = POLLIN};
    int ready;
    do
        ready = poll(&p, 1, timeout_ms);
    while (ready < 0 && errno == EINTR);
    if (ready < 0)
        return -1;
    if (ready == 0)
        return -2;
    ssize_t n;
    do
        n = read(child->out, buf, size);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -1 : (long)n;
}

void tdm_child_kill(tdm_child *child)
{
    kill(child->pid, SIGKILL);
}

/* The usual signals by name; others by number. */
static void signal_name(int sig, char *out, size_t size)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},
                 {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"},
                 {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGPIPE, "SIGPIPE"},
                 {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},   {SIGXCPU, "SIGXCPU"},
                 {SIGXFSZ, "SIGXFSZ"}, {SIGHUP, "SIGHUP"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) {
            snprintf(out, size, "%s", names[i].name);
            return;
        }
    snprintf(out, size, "signal %d", sig);
}

int tdm_child_wait(tdm_child *child, char *ended, size_t ended_size)
{
    int status = 0;
    pid_t got;
    do
        got = waitpid(child->pid, &status, 0);
    while (got < 0 && errno == EINTR);
    close(child->out);
    free(child);
    ended[0] = '\0';
    if (got < 0) {
        snprintf(ended, ended_size, "lost: %s", strerror(errno));
        return 1;
    }
    if (WIFSIGNALED(status)) {
        signal_name(WTERMSIG(status), ended, ended_size);
        return 1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        snprintf(ended, ended_size, "exit status %d", WEXITSTATUS(status));
        return 1;
    }
    return 0;
}

void tdm_child_crash_quietly(void)
{
    /* a signal ends the process, and the parent's wait names it */
}

FILE *tdm_child_take_stdout(void)
{
    fflush(stdout);
    int records = dup(STDOUT_FILENO);
    if (records < 0)
        return NULL;
    fcntl(records, F_SETFD, FD_CLOEXEC);
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        close(records);
        return NULL;
    }
    FILE *stream = fdopen(records, "wb");
    if (!stream)
        close(records);
    return stream;
}
