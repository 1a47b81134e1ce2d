/* Internal: the monotonic clock every measurement reads. */
#ifndef TDM_CORE_CLOCK_H
#define TDM_CORE_CLOCK_H

/* Seconds since an arbitrary start, never going back. */
double tdm_seconds(void);

#endif
