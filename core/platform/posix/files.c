/* tdm_files.h on POSIX. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/tdm_files.h"

int tdm_path_readable(const char *path)
{
    return access(path, R_OK) == 0;
}

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

int tdm_open_regular(const char *path, int *fd, uint64_t *size, const char **kind)
{
    *kind = NULL;
    /* O_NONBLOCK: opening a FIFO that has no writer would wait for one. */
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (f < 0)
        return -1;
    struct stat st;
    if (fstat(f, &st) != 0) {
        int err = errno;
        close(f);
        errno = err;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        *kind = kind_of(st.st_mode);
        close(f);
        errno = 0;
        return -1;
    }
    fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
    *fd = f;
    *size = (uint64_t)st.st_size;
    return 0;
}

void tdm_file_close(int fd)
{
    close(fd);
}
