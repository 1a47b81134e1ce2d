/* FIFOs held open for the outputs that stream into them (fifo_hold.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fifo_hold.h"
#include "platform/tdm_files.h"
#include "platform/tdm_text.h"

int fifo_hold(fifo_holds *h, const char *command, const char *option, const char *path)
{
    tdm_path_kind kind = TDM_PATH_NONE;
    if (!path || tdm_path_kind_of(path, 1, &kind) != 0 || kind != TDM_PATH_PIPE)
        return 0;
    int fd = tdm_fifo_open_writer(path, 0);
    if (fd < 0 && errno == ENXIO) {
        fprintf(stderr, "%s: %s: waiting for a process to read the FIFO %s\n", command, option,
                path);
        fflush(stderr);
        fd = tdm_fifo_open_writer(path, 1);
    }
    if (fd < 0) {
        char why[256];
        fprintf(stderr, "%s: %s: cannot write %s: %s\n", command, option, path,
                tdm_strerror(errno, why, sizeof why));
        return -1;
    }
    if (h->count == FIFO_HOLD_MAX) { /* more outputs than any command has */
        tdm_file_close(fd);
        return 0;
    }
    h->fd[h->count++] = fd;
    return 0;
}

void fifo_release(fifo_holds *h)
{
    for (size_t i = 0; i < h->count; i++)
        tdm_file_close(h->fd[i]);
    h->count = 0;
}
