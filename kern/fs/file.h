/*
 * Open files and descriptors. A struct file is shared by every descriptor
 * that refers to it, in one process or several (spawn passes them all on),
 * and with it the offset, as after fork on Unix. Kinds: the console, a
 * read-only initrd file, either end of a pipe.
 */
#ifndef KERN_FS_FILE_H
#define KERN_FS_FILE_H

#include <stdint.h>

#include "kern/fs/initrd.h"

enum file_kind { FILE_CONSOLE, FILE_INITRD, FILE_PIPE_READ, FILE_PIPE_WRITE };

struct pipe;
struct task;

struct file {
	enum file_kind kind;
	int refs;
	uint64_t offset;          /* FILE_INITRD */
	struct initrd_file ino;   /* FILE_INITRD */
	struct pipe *pipe;        /* FILE_PIPE_* */
};

/* The console, shared by every process that has it open (never freed). */
extern struct file console_file;

struct file *file_new(enum file_kind kind); /* refs 1; NULL: no memory */
struct file *file_dup(struct file *f);
void file_put(struct file *f);              /* drops a reference */

/* current's descriptor fd, or NULL. */
struct file *fd_file(int fd);
/* The lowest free descriptor of current now refers to f (whose reference
 * it takes over): fd, or -EMFILE. */
int fd_install(struct file *f);
/* Copies every descriptor of parent into child (spawn). */
void fd_inherit(struct task *child, const struct task *parent);
/* Closes every descriptor of t (exit). */
void fd_close_all(struct task *t);

long file_read(struct file *f, uint64_t ubuf, uint64_t n);
long file_write(struct file *f, uint64_t ubuf, uint64_t n);

/* kern/fs/pipe.c: a new pipe's two ends; 0 or -ENOMEM. */
int pipe_new(struct file **rd, struct file **wr);
long pipe_read(struct pipe *p, uint64_t ubuf, uint64_t n);
long pipe_write(struct pipe *p, uint64_t ubuf, uint64_t n);
void pipe_close(struct pipe *p, enum file_kind end);

#endif
