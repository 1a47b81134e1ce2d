/* The monotonic clock: wall-clock steps (NTP, a user's date) never skew a measure. */
#include <time.h>

#include "base/clock.h"

double tdm_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
