/* kill -9 during checkpoint writes, again and again: a training run with a
 * checkpoint every step is started, resumed from its directory, and killed at a
 * random moment after its first new checkpoint, until at least MIN_MID_WRITE kills
 * landed in the middle of writing one (its temporary file was left behind). After
 * every kill, the newest checkpoint the run reported complete (or a newer one) is in
 * the directory and verifies whole, no file under a final name is damaged, and the
 * next run restores exactly that newest checkpoint without finding any damage: no
 * checkpoint is ever lost. argv[1]: the most kills to try. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "scratch.h"
#include "train_fixture.h"

#define MIN_MID_WRITE 50
#define MAX_DELAY_US 20000

/* What a child tells its parent through the pipe, in 16-byte messages. */
enum { RESTORED = 1, COMMITTED = 2, DAMAGE = 3 };

static int report_fd;

static void tell(uint64_t what, uint64_t step)
{
    uint64_t msg[2] = {what, step};
    if (write(report_fd, msg, sizeof msg) != sizeof msg)
        _exit(3);
}

/* The monitor saves before it reports a step: a step reported is a committed one. */
static int on_step(const tdm_step_result *r, void *user)
{
    (void)user;
    tell(COMMITTED, r->global_step);
    return 0;
}

static void on_damaged(const char *path, const char *kept_as, const char *reason, void *user)
{
    (void)user, (void)kept_as;
    fprintf(stderr, "child: %s damaged: %s\n", path, reason);
    tell(DAMAGE, 0);
}

/* The child: resume and train on, a checkpoint every step, until killed. */
static void child(const char *dir)
{
    tdm_context *ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *devs[3];
    fixture f;
    fixture_options o = FIXTURE_OPTIONS_INIT;
    o.epochs = 100000;
    o.hidden = 256; /* checkpoints of about 40 KB: writing them is most of a step */
    o.checkpoint_dir = dir;
    o.checkpoint_every = 1;
    o.monitor.progress = on_step;
    o.monitor.damaged = on_damaged;
    int restored = 0;
    uint64_t step = 0;
    if (test_scenario_devices(ctx, "reference", devs) != 3 ||
        fixture_open(&f, ctx, devs, 3, &o) != TDM_OK ||
        tdm_monitor_restore(f.monitor, &restored, &step) != TDM_OK) {
        fprintf(stderr, "child: %s\n", tdm_last_error());
        _exit(2);
    }
    tell(RESTORED, step);
    tdm_status s = tdm_monitor_run_steps(f.monitor, 0, NULL);
    fprintf(stderr, "child: the run ended: %s\n", tdm_last_error());
    _exit(s == TDM_OK ? 0 : 2);
}

/* Reads one message; 0 at the end of the pipe. */
static int receive(int fd, uint64_t msg[2])
{
    size_t got = 0;
    while (got < 2 * sizeof(uint64_t)) {
        ssize_t n = read(fd, (char *)msg + got, 2 * sizeof(uint64_t) - got);
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

/* Whether dir holds a temporary file of process pid: it died writing a checkpoint. */
static int temp_of(const char *dir, pid_t pid)
{
    char mark[48];
    snprintf(mark, sizeof mark, ".tdm.tmp-%ld-", (long)pid);
    return scratch_count(dir, mark) > 0;
}

/* Every file under a final name verifies whole; the newest is at least `reported`. */
static uint64_t check_directory(const char *dir, uint64_t reported)
{
    char path[SCRATCH_PATH + 256];
    uint64_t latest = 0;
    if (reported)
        CHECK_OK(tdm_checkpoint_latest(dir, path, sizeof path, &latest));
    CHECK(latest >= reported);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, "ckpt-", 5) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        tdm_checkpoint *c = NULL;
        CHECK_OK(tdm_checkpoint_open(path, &c));
        tdm_checkpoint_close(c);
    }
    if (d)
        closedir(d);
    return latest;
}

void test_case_kill_loop(const test_run *run)
{
    unsigned long max_kills = run->argc ? strtoul(run->argv[0], NULL, 10) : 400;
    char dir[SCRATCH_PATH];
    scratch_root("tdm-kill-loop");
    scratch_path(dir, "run", 0);
    unsigned rng = 12345;
    unsigned long kills = 0, mid_write = 0;
    uint64_t newest = 0;
    for (; kills < max_kills && mid_write < MIN_MID_WRITE && !test_failures; kills++) {
        int fds[2];
        CHECK(pipe(fds) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            report_fd = fds[1];
            child(dir);
        }
        close(fds[1]);
        uint64_t msg[2], reported = newest;
        int restored = 0, damage = 0;
        /* Until the child has restored and committed a checkpoint of its own. */
        while (receive(fds[0], msg) && msg[0] != COMMITTED) {
            restored |= msg[0] == RESTORED && msg[1] == newest;
            damage |= msg[0] == DAMAGE;
        }
        rng = rng * 1103515245u + 12345u;
        struct timespec t = {0, (long)((rng >> 8) % MAX_DELAY_US) * 1000};
        nanosleep(&t, NULL);
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        for (reported = msg[1]; receive(fds[0], msg);) {
            damage |= msg[0] == DAMAGE;
            if (msg[0] == COMMITTED)
                reported = msg[1];
        }
        close(fds[0]);
        if (!restored || damage || !WIFSIGNALED(status)) {
            test_failures++;
            fprintf(stderr,
                    "kill %lu: restored the newest (%llu): %d, damage found: %d, "
                    "status %d\n",
                    kills, (unsigned long long)newest, restored, damage, status);
        }
        mid_write += (unsigned long)temp_of(dir, pid);
        newest = check_directory(dir, reported);
    }
    fprintf(stderr,
            "test_kill_loop: %lu kills, %lu in the middle of a checkpoint write, the "
            "newest checkpoint step %llu\n",
            kills, mid_write, (unsigned long long)newest);
    CHECK(mid_write >= MIN_MID_WRITE);
    scratch_remove();
}
