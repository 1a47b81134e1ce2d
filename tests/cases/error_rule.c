/* The rule of tdm_last_error: while a failure is handled, a later failure is appended
 * to its first cause, never put in its place; a context prefixes the failure it is
 * given for; after the handling a new failure replaces the message. */
#include "base/error.h"
#include "harness.h"

static void check_message(const char *expected)
{
    CHECK(!strcmp(tdm_last_error(), expected));
    if (strcmp(tdm_last_error(), expected))
        fprintf(stderr, "  got      '%s'\n  expected '%s'\n", tdm_last_error(), expected);
}

/* Without a hold, every failure replaces the last one, as before. */
static void check_replaced(void)
{
    tdm_fail(TDM_ERR_TIMEOUT, "rank 2 stopped answering");
    CHECK(tdm_fail(TDM_ERR_NOT_FOUND, "no slot 'm'") == TDM_ERR_NOT_FOUND);
    check_message("no slot 'm'");
}

/* The resync after a failed remote step: its own failure follows the root cause,
 * and the step's context prefixes the whole story. */
static void check_root_cause_kept(void)
{
    tdm_status s = tdm_fail(TDM_ERR_TIMEOUT, "rank 2 (parameter server 0) stopped answering");
    tdm_error_hold();
    CHECK(tdm_fail(TDM_ERR_NOT_FOUND, "no slot '%s'", "m") == TDM_ERR_NOT_FOUND);
    tdm_fail_context(TDM_ERR_NOT_FOUND, "resync");
    static const char *const names[] = {"a", "b", NULL};
    size_t index = 0;
    CHECK(tdm_name_find("find", "name", names, "c", &index) == TDM_ERR_NOT_FOUND);
    tdm_error_release();
    CHECK(tdm_fail_context(s, "step %d", 7) == TDM_ERR_TIMEOUT);
    check_message("step 7: rank 2 (parameter server 0) stopped answering; then: resync: no "
                  "slot 'm'; then: find: no name 'c' (a, b)");
}

/* Holds nest: the inner release keeps the outer hold; the outer one ends it. */
static void check_nested(void)
{
    tdm_fail(TDM_ERR_REMOTE, "root");
    tdm_error_hold();
    tdm_error_hold();
    tdm_fail(TDM_ERR_REMOTE, "first");
    tdm_error_release();
    tdm_fail(TDM_ERR_REMOTE, "second");
    tdm_error_release();
    check_message("root; then: first; then: second");
    tdm_fail(TDM_ERR_REMOTE, "afresh");
    check_message("afresh");
}

/* A message that fills the buffer is cut, never overrun, and an argument may be the
 * message itself. */
static void check_long(void)
{
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    tdm_fail(TDM_ERR_REMOTE, "%s", big);
    tdm_error_hold();
    tdm_fail(TDM_ERR_REMOTE, "lost");
    tdm_fail_context(TDM_ERR_REMOTE, "context");
    tdm_fail(TDM_ERR_REMOTE, "%s", tdm_last_error());
    tdm_error_release();
    CHECK(strlen(tdm_last_error()) < sizeof big && tdm_last_error()[0] == 'x');
    tdm_fail(TDM_ERR_REMOTE, "short");
    tdm_error_hold();
    tdm_fail(TDM_ERR_REMOTE, "%s", tdm_last_error());
    tdm_error_release();
    check_message("short; then: short");
}

/* A path longer than the system allows gives way in the middle of the message, so
 * its start and its reason stay (once a 9 KB message was cut before its reason), in
 * a failure and under a context alike; a cut never splits a UTF-8 character. */
static void check_reason_kept(void)
{
    static char path[9000];
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = 0;
    tdm_fail(TDM_ERR_INVALID_ARGUMENT, "save: cannot write /tmp/%s: File name too long", path);
    tdm_fail_context(TDM_ERR_INVALID_ARGUMENT, "--save");
    const char *m = tdm_last_error(), *reason = ": File name too long";
    size_t len = strlen(m);
    CHECK(len < 4096 && len > strlen(reason));
    CHECK(!strncmp(m, "--save: save: cannot write /tmp/ppp", 35));
    CHECK(strstr(m, " [...] ") != NULL);
    CHECK(!strcmp(m + len - strlen(reason), reason));
    char out[16];
    tdm_text_fit(out, sizeof out, "short");
    CHECK(!strcmp(out, "short"));
    /* "é" is two bytes: no cut leaves half of one */
    static char accents[200];
    for (size_t i = 0; i + 2 < sizeof accents; i += 2)
        memcpy(accents + i, "\xc3\xa9", 2);
    char fitted[33];
    for (size_t size = 10; size <= sizeof fitted; size++) {
        tdm_text_fit(fitted, size, accents);
        size_t n = strlen(fitted), bad = 0;
        for (size_t i = 0; i < n; i++) /* every lead byte has its continuation */
            bad += (unsigned char)fitted[i] == 0xc3 && (i + 1 == n || (unsigned char)fitted[i + 1] != 0xa9);
        bad += (unsigned char)fitted[0] == 0xa9 || (n && (unsigned char)fitted[n - 1] == 0xc3);
        CHECK(n < size && bad == 0);
    }
}

void test_case_error_rule(const test_run *run)
{
    (void)run;
    check_replaced();
    check_root_cause_kept();
    check_nested();
    check_long();
    check_reason_kept();
}
