/* tandem train: what the processes of a job must agree on, compared before the model
 * is built (tdm_strategy_check_agreement). Their own devices and paths may differ. */
#ifndef TANDEM_CLI_TRAIN_FINGERPRINT_H
#define TANDEM_CLI_TRAIN_FINGERPRINT_H

#include "tandem/tandem.h"
#include "train_data.h"
#include "train_options.h"

/* 0 when every process of the job has this one's fingerprint (or the job is one
 * process); 2 after printing which rank differs, in which option and both values; 1
 * after printing why the comparison failed. */
int train_fingerprint_check(const train_options *o, const train_data *d, tdm_strategy *strategy);

#endif
