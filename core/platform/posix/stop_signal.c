/* tdm_stop_signal.h on POSIX signals. */
#include <signal.h>
#include <string.h>
#include <time.h>

#include "platform/tdm_stop_signal.h"

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])

static volatile sig_atomic_t received;
static volatile sig_atomic_t first_at; /* CLOCK_MONOTONIC seconds of the first */

/* Seconds of the monotonic clock (clock_gettime is async-signal-safe). */
static long now_s(void)
{
    struct timespec t;
    return clock_gettime(CLOCK_MONOTONIC, &t) == 0 ? (long)t.tv_sec : 0;
}

/* The first signal asks; a second, of any of the three, ends the process at once, for
 * a user who cannot wait for the step: but not one within 2 s of the first, which is
 * the same stop sent twice (a batch scheduler signals mpirun and every process of
 * the job, and mpirun passes its own on too). */
static void on_stop(int sig)
{
    if (received && now_s() - first_at >= 2) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    if (!received) {
        first_at = (sig_atomic_t)now_s();
        received = sig;
    }
}

void tdm_stop_signal_catch(int termination)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* reads and writes of data and checkpoints go on */
    for (size_t i = 0; i < (termination ? STOP_SIGNALS : 1); i++)
        sigaction(stop_signals[i], &sa, NULL);
}

void tdm_stop_signal_release(void)
{
    for (size_t i = 0; i < STOP_SIGNALS; i++)
        signal(stop_signals[i], SIG_DFL);
}

int tdm_stop_signal_received(void)
{
    return received;
}

const char *tdm_stop_signal_name(void)
{
    return received == SIGINT ? "SIGINT" : received == SIGTERM ? "SIGTERM" : "SIGHUP";
}
