/* Learning-rate schedules: their checks and their value at a step, in double. */
#include <inttypes.h>
#include <math.h>

#include "base/error.h"
#include "tandem/optimizer.h"

static const char check_func[] = "tdm_lr_schedule_check";

static int nonnegative(float x)
{
    return isfinite(x) && x >= 0.0f;
}

/* Why the schedule is invalid, with tdm_fail, or TDM_OK. quiet: no message. */
static tdm_status validate(const tdm_lr_schedule *s, int quiet)
{
#define BAD(...)                                                                                   \
    (quiet ? TDM_ERR_INVALID_ARGUMENT : tdm_fail(TDM_ERR_INVALID_ARGUMENT, __VA_ARGS__))
    if (!s)
        return BAD("%s: argument 's' is NULL", check_func);
    if ((unsigned)s->kind >= TDM_LR_KIND_COUNT)
        return BAD("%s: unknown kind %d (CONSTANT, EXPONENTIAL_DECAY, STEP_DECAY or "
                   "WARMUP_COSINE)",
                   check_func, (int)s->kind);
    if (!nonnegative(s->initial))
        return BAD("%s: 'initial' is %g; a learning rate must be finite and >= 0", check_func,
                   (double)s->initial);
    switch (s->kind) {
    case TDM_LR_CONSTANT:
    case TDM_LR_KIND_COUNT: break; /* refused above */
    case TDM_LR_EXPONENTIAL_DECAY:
    case TDM_LR_STEP_DECAY:
        if (s->decay_steps == 0)
            return BAD("%s: 'decay_steps' is 0; the rate decays by decay_rate every "
                       "decay_steps steps, so it must be > 0",
                       check_func);
        if (!isfinite(s->decay_rate) || !(s->decay_rate > 0.0f))
            return BAD("%s: 'decay_rate' is %g; it must be finite and > 0", check_func,
                       (double)s->decay_rate);
        break;
    case TDM_LR_WARMUP_COSINE:
        if (s->total_steps == 0)
            return BAD("%s: 'total_steps' is 0; the schedule spans warm-up and decay, so it "
                       "must be > 0",
                       check_func);
        if (s->warmup_steps > s->total_steps)
            return BAD("%s: 'warmup_steps' (%" PRIu64 ") is greater than 'total_steps' (%" PRIu64
                       "); warm-up is part of the schedule",
                       check_func, s->warmup_steps, s->total_steps);
        if (!nonnegative(s->final_rate))
            return BAD("%s: 'final_rate' is %g; a learning rate must be finite and >= 0",
                       check_func, (double)s->final_rate);
        break;
    }
    return TDM_OK;
#undef BAD
}

tdm_status tdm_lr_schedule_check(const tdm_lr_schedule *s)
{
    return validate(s, 0);
}

static double warmup_cosine(const tdm_lr_schedule *s, uint64_t step)
{
    double peak = s->initial, final = s->final_rate;
    if (step < s->warmup_steps)
        return peak * (double)(step + 1) / (double)s->warmup_steps;
    if (step >= s->total_steps)
        return final;
    double progress = (double)(step - s->warmup_steps) / (double)(s->total_steps - s->warmup_steps);
    return final + (peak - final) * 0.5 * (1.0 + cos(M_PI * progress));
}

float tdm_lr_schedule_value(const tdm_lr_schedule *s, uint64_t step)
{
    if (validate(s, 1) != TDM_OK)
        return NAN;
    switch (s->kind) {
    case TDM_LR_EXPONENTIAL_DECAY:
        return (float)(s->initial * pow(s->decay_rate, (double)step / (double)s->decay_steps));
    case TDM_LR_STEP_DECAY:
        return (float)(s->initial * pow(s->decay_rate, (double)(step / s->decay_steps)));
    case TDM_LR_WARMUP_COSINE: return (float)warmup_cosine(s, step);
    case TDM_LR_CONSTANT:
    case TDM_LR_KIND_COUNT: break;
    }
    return s->initial;
}
