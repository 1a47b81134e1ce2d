/* tandem train: SIGINT, SIGTERM and SIGHUP stop a run after the step in progress,
 * so that a batch scheduler's SIGTERM leaves a checkpoint, not a half-written file. */
#ifndef TANDEM_CLI_TRAIN_STOP_H
#define TANDEM_CLI_TRAIN_STOP_H

/* Catches SIGINT, and with termination SIGTERM and SIGHUP too; a second signal ends
 * the process at once. */
void train_stop_catch(int termination);
/* Gives the three signals back their default actions. */
void train_stop_release(void);
/* The signal that asked the run to stop, or 0. */
int train_stop_signal(void);
/* Its name, "SIGTERM". */
const char *train_stop_signal_name(void);

#endif
