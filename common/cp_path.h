/* cp_path.h - how collprof creates its output files and opens its inputs.
 *
 * collprof may run as root on a directory another user can write (an
 * administrator analysing a user's logs, the plugin's step directory).
 * Nothing here writes or reads through a name that user can change:
 * - an output is created under a fresh random name with
 *   O_CREAT|O_EXCL|O_NOFOLLOW, by a descriptor of its directory opened
 *   once, written through that descriptor and renamed (renameat) within
 *   the same directory; an output name that is a symbolic link, a device,
 *   a fifo or a socket is refused, never replaced or written through;
 * - an input is opened with O_NOFOLLOW|O_NONBLOCK and must be a regular
 *   file (fstat after the open): a fifo is refused at once instead of
 *   blocking; a symbolic link is followed only where the caller allows it
 *   and only to a regular file the invoking user owns, checked before the
 *   file is opened (a link to a device or a fifo opens nothing);
 * - a directory given on the command line is opened once (cp_path_anchor):
 *   inputs and outputs named "DIR/NAME" are then opened, listed and
 *   written by its descriptor, never by its path again.
 */
#ifndef COLLPROF_CP_PATH_H
#define COLLPROF_CP_PATH_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "cp_error.h"

/* mkdir -p: create path and its missing parents with mode (existing ones
 * are fine).  Returns 0, or -1 with errno set (ENAMETOOLONG past PATH_MAX). */
int cp_path_mkdir(const char *path, mode_t mode);

/* An output file on its way: write to f, then cp_path_install() or
 * cp_path_discard() (exactly one of them, whatever happened). */
struct cp_path_out {
    FILE *f;                 /* write here; owned by the struct */
    int dirfd;               /* the directory, opened once */
    char name[NAME_MAX + 1]; /* the final name in dirfd */
    char tmp[NAME_MAX + 1];  /* the temporary name in dirfd */
    char path[4200];         /* the output as named, for messages */
};

/* The default mode of outputs: 0666, less the umask. */
#define CP_PATH_MODE 0666

/* Start the output path ("DIR/NAME" or "NAME"): open DIR, check that NAME
 * is not a symbolic link or anything but a regular file, create the
 * temporary file with mode (less the umask).  Returns 0, or -1 with err
 * filled (naming the link or the directory); nothing is left behind. */
int cp_path_create(struct cp_path_out *o, const char *path, mode_t mode,
                   struct cp_error *err);

/* Finish o: a write error on o->f or its close, a final name that became a
 * link or not a regular file, or the rename fill err and remove the
 * temporary file.  o->f is closed in every case.  Returns 0 or -1. */
int cp_path_install(struct cp_path_out *o, struct cp_error *err);

/* Give o up: close o->f, remove the temporary file.  Safe on a zeroed or
 * already finished o. */
void cp_path_discard(struct cp_path_out *o);

/* Write text (n bytes) to path through cp_path_create/install. */
int cp_path_write(const char *path, const void *text, size_t n, mode_t mode,
                  struct cp_error *err);

/* How inputs treat a symbolic link. */
enum cp_path_links {
    CP_PATH_NOFOLLOW, /* refused, naming the link */
    CP_PATH_FOLLOW,   /* followed to a file the invoking user owns */
};

/* Open the input path read-only as above.  Returns the descriptor
 * (blocking, close-on-exec; the caller closes it), or -1 with err filled
 * and errno set (ELOOP: a link refused; EINVAL: not a regular file). */
int cp_path_open_input(const char *path, enum cp_path_links links,
                       struct cp_error *err);

/* The same, for a reader of a regular file by pread: the file's fstat in
 * *st, and O_NONBLOCK left set (it changes nothing for a regular file):
 * two system calls fewer per file, which count at thousands of logs. */
struct stat;
int cp_path_open_input_stat(const char *path, enum cp_path_links links,
                            struct stat *st, struct cp_error *err);

/* The same as a stdio stream ("r"); NULL with err filled. */
FILE *cp_path_fopen_input(const char *path, enum cp_path_links links,
                          struct cp_error *err);

/* The whole text of the input path (opened as above), NUL-terminated, in
 * a buffer the caller frees; its length in *len.  A file of more than max
 * bytes or holding a NUL byte is refused, the error naming it and saying
 * it is not a `what` ("profile", "nccl-tests output"); errno then says
 * which (EFBIG over max, EINVAL for a NUL byte, else the open's or read's). */
char *cp_path_read_text(const char *path, enum cp_path_links links,
                        size_t max, const char *what, size_t *len,
                        struct cp_error *err);

/* Open the directory path once, for good: every later name "PATH/NAME"
 * given to this module (inputs, cp_path_opendir, cp_path_stat, outputs'
 * directories) is opened by that descriptor (openat), so that path
 * swapped for a link, or anything else, while the command runs redirects
 * nothing.  The path is walked from / (or the working directory) a
 * component at a time; a symbolic link on the way, the last component
 * included, is followed only when root or the invoking user owns it (a
 * link of another user is refused, naming it).  A path that names a file
 * anchors its directory (when it has one) and returns 0; 1 for a
 * directory; -1 with err filled.  For main(), before any thread starts;
 * the descriptors stay open until the process ends. */
int cp_path_anchor(const char *path, struct cp_error *err);

/* The anchored directory path names or holds directly ("DIR/NAME"): its
 * descriptor (owned by this module) and, in *name, "." or NAME; -1 when
 * there is none. */
int cp_path_dirfd(const char *path, const char **name);

/* opendir(path), by the anchored directory's descriptor when path is one
 * (a new open of it: its own position).  NULL with err filled. */
DIR *cp_path_opendir(const char *path, struct cp_error *err);

/* stat(path); for a name in an anchored directory, fstatat by its
 * descriptor without following a link (the anchored directory itself:
 * fstat).  0 or -1 (errno). */
struct stat;
int cp_path_stat(const char *path, struct stat *st);

/* 1 when path has a `..` component (the SPANK plugin refuses such a
 * directory: its walk checks every component it meets). */
int cp_path_has_dotdot(const char *path);

/* The policy for logs (*.cplog): CP_PATH_NOFOLLOW unless the command was
 * given --follow-symlinks.  Process-wide, set once by main(). */
void cp_path_set_log_links(enum cp_path_links links);
enum cp_path_links cp_path_log_links(void);

#endif
