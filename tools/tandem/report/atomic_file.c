#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"

static int fail(const char *path, int error, char *err, size_t err_size)
{
    if (err && err_size)
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(error));
    return -1;
}

/* Opens a fresh "PATH.tmpPID.N": O_EXCL, so another writer's file is never reused. */
static int create_tmp(const char *path, char *tmp, size_t tmp_size)
{
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        snprintf(tmp, tmp_size, "%s.tmp%ld.%u", path, (long)getpid(), attempt);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

int atomic_file_open(atomic_file *a, const char *path, char *err, size_t err_size)
{
    size_t size = strlen(path) + 40;
    a->f = NULL;
    a->path = path;
    a->tmp_path = malloc(size);
    if (!a->tmp_path)
        return fail(path, ENOMEM, err, err_size);
    int fd = create_tmp(path, a->tmp_path, size);
    if (fd >= 0 && !(a->f = fdopen(fd, "wb"))) {
        int error = errno;
        close(fd);
        unlink(a->tmp_path);
        errno = error;
    }
    if (!a->f) {
        int error = errno;
        free(a->tmp_path);
        a->tmp_path = NULL;
        return fail(path, error, err, err_size);
    }
    return 0;
}

int atomic_file_commit(atomic_file *a, char *err, size_t err_size)
{
    int error = 0;
    if (ferror(a->f))
        error = errno ? errno : EIO;
    if (fclose(a->f) != 0 && !error)
        error = errno;
    a->f = NULL;
    if (!error && rename(a->tmp_path, a->path) != 0)
        error = errno;
    if (error)
        unlink(a->tmp_path);
    free(a->tmp_path);
    a->tmp_path = NULL;
    return error ? fail(a->path, error, err, err_size) : 0;
}

void atomic_file_abort(atomic_file *a)
{
    if (a->f)
        fclose(a->f);
    if (a->tmp_path)
        unlink(a->tmp_path);
    free(a->tmp_path);
    a->f = NULL;
    a->tmp_path = NULL;
}
