/* Internal: paths through symbolic links, followed link after link as the kernel
 * would, for outputs that replace the file a link names and for a checkpoint folder
 * that is a link to a folder not made yet. */
#ifndef TDM_CHECKPOINT_PATH_LINKS_H
#define TDM_CHECKPOINT_PATH_LINKS_H

#include "platform/tdm_files.h"
#include "tandem/status.h"

/* *target = path with its links followed (malloc'd); *kind what is there
 * (TDM_PATH_NONE where nothing is yet, never TDM_PATH_LINK). A failure reads "func:
 * cannot <what> <path>: <strerror>". */
tdm_status tdm_path_follow_links(const char *path, const char *func, const char *what,
                                 char **target, tdm_path_kind *kind);

/* Creates dir (mode 0777 less the umask) unless it is already a directory; a new
 * one is made durable with an fsync of its parent. A dangling symbolic link is
 * followed and the directory made where it points, as a user who made the link for
 * a folder to come expects; an error then names both. */
tdm_status tdm_ckpt_os_make_dir(const char *dir, const char *func);

#endif
