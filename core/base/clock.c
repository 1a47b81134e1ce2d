/* The monotonic clock: wall-clock steps (NTP, a user's date) never skew a measure. */
#include "base/clock.h"
#include "platform/tdm_host.h"

double tdm_seconds(void)
{
    return 1e-9 * (double)tdm_host_now_ns();
}
