/* tandem_tests: the one program of the suite's C cases. `tandem_tests CASE ARGS...`
 * runs a case of tests/cases.def, `tandem_tests --list` lists them. The runner
 * checks the arguments against the case's usage line, opens a SCENARIO case's
 * context and devices, and reports the case's checks. */
#include <stdlib.h>

#include "harness.h"

typedef enum { PLAIN, SCENARIO } harness_kind;

typedef struct test_case {
    const char *name;
    harness_kind harness;
    const char *args, *what;
    void (*body)(const test_run *);
} test_case;

static const test_case cases[] = {
#define TDM_TEST_CASE(name, harness, built_with, args, what)                                       \
    {#name, harness, args, what, test_case_##name},
#include "test_cases.inc"
#undef TDM_TEST_CASE
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

static const test_case *find_case(const char *name)
{
    for (size_t i = 0; i < CASE_COUNT; i++)
        if (!strcmp(cases[i].name, name))
            return &cases[i];
    return NULL;
}

/* Whether value is one of the words of a|b|c. */
static int one_of(const char *choices, size_t len, const char *value)
{
    size_t v = strlen(value);
    for (const char *w = choices, *end = choices + len; w < end;) {
        const char *bar = memchr(w, '|', (size_t)(end - w));
        size_t n = (size_t)((bar ? bar : end) - w);
        if (n == v && !strncmp(w, value, n))
            return 1;
        w += n + 1;
    }
    return 0;
}

/* Whether argv fits the usage line: its words in order, [optional] ones last. */
static int usage_fits(const char *usage, int argc, char **argv)
{
    int i = 0;
    for (const char *w = usage; *w;) {
        w += strspn(w, " ");
        size_t n = strcspn(w, " ");
        if (!n)
            break;
        int optional = w[0] == '[';
        const char *word = w + optional;
        size_t len = n - 2 * (size_t)optional;
        if (i == argc) {
            if (!optional)
                return 0;
        } else {
            int lower = word[0] >= 'a' && word[0] <= 'z';
            if (lower && !one_of(word, len, argv[i]))
                return 0;
            i++;
        }
        w += n;
    }
    return i == argc;
}

static void print_usage(FILE *to, const test_case *c)
{
    fprintf(to, "usage: tandem_tests %s%s%s\n", c->name, *c->args ? " " : "", c->args);
}

void test_usage_error(const test_run *run, const char *why)
{
    fprintf(stderr, "%s: %s\n", run->name, why);
    print_usage(stderr, find_case(run->name));
    test_failures++;
}

/* A SCENARIO case between its context's opening and its validation check. */
static void run_in_scenario(const test_case *c, test_run *run)
{
    run->scenario = run->argv[0];
    run->ctx = test_context(test_scenario_backends(run->scenario));
    run->n_devs = test_scenario_devices(run->ctx, run->scenario, run->devs);
    if (run->n_devs >= 2)
        c->body(run);
    else {
        fprintf(stderr, "scenario %s: no devices for it\n", run->scenario);
        test_failures++;
    }
    CHECK(tdm_context_validation_messages(run->ctx) == 0);
    tdm_context_destroy(run->ctx);
}

static void list_cases(void)
{
    for (size_t i = 0; i < CASE_COUNT; i++)
        printf("%-22s %s\n%-22s   %s\n", cases[i].name, cases[i].args, "", cases[i].what);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        list_cases();
        return 0;
    }
    const test_case *c = argc >= 2 ? find_case(argv[1]) : NULL;
    if (!c) {
        fprintf(stderr, "usage: tandem_tests CASE ARGS... | --list%s%s%s\n",
                argc >= 2 ? " (no case " : "", argc >= 2 ? argv[1] : "", argc >= 2 ? ")" : "");
        return 2;
    }
    test_run run = {.name = c->name, .argc = argc - 2, .argv = argv + 2};
    if (!usage_fits(c->args, run.argc, run.argv)) {
        print_usage(stderr, c);
        return 2;
    }
    if (c->harness == SCENARIO)
        run_in_scenario(c, &run);
    else
        c->body(&run);
    char label[160];
    snprintf(label, sizeof label, "%s%s%s", c->name, run.argc ? " " : "",
             run.argc ? run.argv[0] : "");
    return test_finish(label);
}
