/* tdm_stop_signal.h on POSIX signals. */
#include <signal.h>
#include <string.h>

#include "platform/tdm_stop_signal.h"

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])

static volatile sig_atomic_t received;

/* The first signal asks; a second, of any of the three, ends the process at once,
 * for a user who cannot wait for the step. */
static void on_stop(int sig)
{
    if (received) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    received = sig;
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
