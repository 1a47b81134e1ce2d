/* Internal: the signals that stop `tandem train` after the step in progress, so that
 * a batch scheduler's SIGTERM leaves a checkpoint, not a half-written file
 * (posix/stop_signal.c: SIGINT, SIGTERM, SIGHUP; Win32's SetConsoleCtrlHandler gives
 * Ctrl-C, Ctrl-Break and closing the console the same roles). */
#ifndef TDM_PLATFORM_STOP_SIGNAL_H
#define TDM_PLATFORM_STOP_SIGNAL_H

/* Catches SIGINT, and with termination SIGTERM and SIGHUP too; a second signal two
 * seconds or more after the first ends the process at once (one sooner is the same
 * stop sent twice: a scheduler's and mpirun's). */
void tdm_stop_signal_catch(int termination);
/* Gives the signals back their default actions. */
void tdm_stop_signal_release(void);
/* The number of the signal that asked the run to stop (2 for SIGINT, as POSIX numbers
 * them), or 0. */
int tdm_stop_signal_received(void);
/* Its name, "SIGTERM". */
const char *tdm_stop_signal_name(void);

#endif
