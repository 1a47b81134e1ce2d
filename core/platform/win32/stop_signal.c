/* tdm_stop_signal.h on Win32: a console control handler. Ctrl-C reports POSIX's
 * SIGINT (2), Ctrl-Break SIGTERM (15), closing the console, logging off or shutting
 * down SIGHUP (1), so the CLI's exit status (128 + n) is the same on both systems. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "platform/tdm_stop_signal.h"

enum { STOP_SIGINT = 2, STOP_SIGHUP = 1, STOP_SIGTERM = 15 };

static volatile LONG received;
static volatile LONG termination_too;

/* Runs on a thread of its own. The first event asks; a second ends the process at
 * once, for a user who cannot wait for the step. */
static BOOL WINAPI on_stop(DWORD event)
{
    int sig = event == CTRL_C_EVENT       ? STOP_SIGINT
              : event == CTRL_BREAK_EVENT ? STOP_SIGTERM
                                          : STOP_SIGHUP;
    if (sig != STOP_SIGINT && !termination_too)
        return FALSE; /* the system's default: end the process */
    if (InterlockedCompareExchange(&received, sig, 0) != 0)
        ExitProcess(128u + (unsigned)sig);
    return TRUE;
}

void tdm_stop_signal_catch(int termination)
{
    termination_too = termination != 0;
    SetConsoleCtrlHandler(on_stop, TRUE);
}

void tdm_stop_signal_release(void)
{
    SetConsoleCtrlHandler(on_stop, FALSE);
}

int tdm_stop_signal_received(void)
{
    return (int)received;
}

const char *tdm_stop_signal_name(void)
{
    return received == STOP_SIGINT ? "SIGINT" : received == STOP_SIGTERM ? "SIGTERM" : "SIGHUP";
}
